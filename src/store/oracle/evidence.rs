//! [`EvidenceOps`] on Oracle: order and SEQN evidence read and written in
//! the state transaction of the message they count, and the message that
//! blocks the head, with named binds. Never run on this project's machines
//! (no Oracle there); pinned and linted with the other statements.

use chrono::{NaiveDate, NaiveDateTime};
use oracle::Row;
use oracle::sql_type::Timestamp;

use super::binds::{AsDate, Text, read_time, required_time};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{
    CONFLICT, DayOrder, EvidenceOps, FailedHead, INFRA, ProcStatus, SenderSeqn, StoreError,
};

fn day_order(row: &Row, op: &'static str) -> Result<DayOrder, StoreError> {
    let day: Timestamp = row.get("operation_day").map_err(at(op))?;
    let snapshot: Option<Timestamp> = row.get("snapshot_dttm").map_err(at(op))?;
    let event: Option<Timestamp> = row.get("newest_event_dttm").map_err(at(op))?;
    Ok(DayOrder {
        operation_day: required_time(day, op)?.date(),
        snapshot_dttm: read_time(snapshot),
        snapshot_message_id: row.get("snapshot_message_id").map_err(at(op))?,
        newest_event_dttm: read_time(event),
        newest_event_id: row.get("newest_event_id").map_err(at(op))?,
        late_events: row.get("late_events").map_err(at(op))?,
        last_late_event_id: row.get("last_late_event_id").map_err(at(op))?,
        late_event_after_id: row.get("late_event_after_id").map_err(at(op))?,
        stale_snapshots: row.get("stale_snapshots").map_err(at(op))?,
        last_stale_snapshot_id: row.get("last_stale_snapshot_id").map_err(at(op))?,
        stale_snapshot_over_id: row.get("stale_snapshot_over_id").map_err(at(op))?,
    })
}

fn sender_seqn(row: &Row, op: &'static str) -> Result<SenderSeqn, StoreError> {
    Ok(SenderSeqn {
        sender: row.get("sender").map_err(at(op))?,
        last_seqn: row.get("last_seqn").map_err(at(op))?,
        last_message_id: row.get("last_message_id").map_err(at(op))?,
        messages: row.get("messages").map_err(at(op))?,
        repeats: row.get("repeats").map_err(at(op))?,
        gaps: row.get("gaps").map_err(at(op))?,
        missing: row.get("missing").map_err(at(op))?,
        resets: row.get("resets").map_err(at(op))?,
        unreadable: row.get("unreadable").map_err(at(op))?,
        last_anomaly: row.get("last_anomaly").map_err(at(op))?,
        last_anomaly_id: row.get("last_anomaly_id").map_err(at(op))?,
    })
}

impl EvidenceOps for OracleTx<'_> {
    fn select_order_evidence(&mut self, day: NaiveDate) -> Result<Option<DayOrder>, StoreError> {
        let op = "select_order_evidence";
        let mut rows = self
            .conn()
            .query_named(
                sql::SELECT_ORDER_EVIDENCE,
                &[("operation_day", &AsDate::day(day))],
            )
            .map_err(at(op))?;
        rows.next()
            .map(|row| day_order(&row.map_err(at(op))?, op))
            .transpose()
    }

    fn upsert_order_evidence(
        &mut self,
        e: &DayOrder,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute_named(
                sql::UPSERT_ORDER_EVIDENCE,
                &[
                    ("operation_day", &AsDate::day(e.operation_day)),
                    ("snapshot_dttm", &AsDate(e.snapshot_dttm)),
                    ("snapshot_message_id", &e.snapshot_message_id),
                    ("newest_event_dttm", &AsDate(e.newest_event_dttm)),
                    ("newest_event_id", &e.newest_event_id),
                    ("late_events", &e.late_events),
                    ("last_late_event_id", &e.last_late_event_id),
                    ("late_event_after_id", &e.late_event_after_id),
                    ("stale_snapshots", &e.stale_snapshots),
                    ("last_stale_snapshot_id", &e.last_stale_snapshot_id),
                    ("stale_snapshot_over_id", &e.stale_snapshot_over_id),
                    ("updated_at", &AsDate(Some(now))),
                ],
            )
            .map_err(at("upsert_order_evidence"))?;
        Ok(())
    }

    fn select_seqn_evidence(&mut self, sender: &str) -> Result<Option<SenderSeqn>, StoreError> {
        let op = "select_seqn_evidence";
        let mut rows = self
            .conn()
            .query_named(
                sql::SELECT_SEQN_EVIDENCE,
                &[("sender", &Text(Some(sender)))],
            )
            .map_err(at(op))?;
        rows.next()
            .map(|row| sender_seqn(&row.map_err(at(op))?, op))
            .transpose()
    }

    fn upsert_seqn_evidence(
        &mut self,
        e: &SenderSeqn,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute_named(
                sql::UPSERT_SEQN_EVIDENCE,
                &[
                    ("sender", &Text(Some(&e.sender))),
                    ("last_seqn", &Text(Some(&e.last_seqn))),
                    ("last_message_id", &e.last_message_id),
                    ("messages", &e.messages),
                    ("repeats", &e.repeats),
                    ("gaps", &e.gaps),
                    ("missing", &e.missing),
                    ("resets", &e.resets),
                    ("unreadable", &e.unreadable),
                    ("last_anomaly", &Text(e.last_anomaly.as_deref())),
                    ("last_anomaly_id", &e.last_anomaly_id),
                    ("updated_at", &AsDate(Some(now))),
                ],
            )
            .map_err(at("upsert_seqn_evidence"))?;
        Ok(())
    }

    fn select_latest_order_evidence(&mut self, limit: i64) -> Result<Vec<DayOrder>, StoreError> {
        let op = "select_latest_order_evidence";
        let rows = self
            .conn()
            .query_named(sql::SELECT_LATEST_ORDER_EVIDENCE, &[("how_many", &limit)])
            .map_err(at(op))?;
        rows.map(|row| day_order(&row.map_err(at(op))?, op))
            .collect()
    }

    fn select_seqn_senders(&mut self, limit: i64) -> Result<Vec<SenderSeqn>, StoreError> {
        let op = "select_seqn_senders";
        let rows = self
            .conn()
            .query_named(sql::SELECT_SEQN_SENDERS, &[("how_many", &limit)])
            .map_err(at(op))?;
        rows.map(|row| sender_seqn(&row.map_err(at(op))?, op))
            .collect()
    }

    fn select_blocked_head(&mut self) -> Result<Option<FailedHead>, StoreError> {
        let op = "select_blocked_head";
        let mut rows = self
            .conn()
            .query_named(
                sql::SELECT_BLOCKED_HEAD,
                &[
                    ("status", &Text(Some(ProcStatus::Failed.code()))),
                    ("infra", &Text(Some(INFRA))),
                    ("conflict", &Text(Some(CONFLICT))),
                ],
            )
            .map_err(at(op))?;
        let Some(row) = rows.next() else {
            return Ok(None);
        };
        let row = row.map_err(at(op))?;
        let first: Timestamp = row.get("first_seen_at").map_err(at(op))?;
        let updated: Timestamp = row.get("updated_at").map_err(at(op))?;
        Ok(Some(FailedHead {
            message_id: row.get("message_id").map_err(at(op))?,
            error_kind: row.get("error_kind").map_err(at(op))?,
            error_text: row.get("error_text").map_err(at(op))?,
            attempts: row.get("attempts").map_err(at(op))?,
            first_seen_at: required_time(first, op)?,
            updated_at: required_time(updated, op)?,
        }))
    }
}
