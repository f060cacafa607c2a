//! [`OutboxOps`] on Oracle: claiming and settling the rows of `KAFKA_SCHD` and `KAFKA_MSG`.
//!
//! Claims are `FOR UPDATE SKIP LOCKED` over a ROWNUM-cut candidate list (11g has no
//! `FETCH FIRST`), so a claim may return fewer rows than asked when another dispatcher holds
//! some; the dispatcher takes short batches as they come (STYLE §3.7). The cut comes before
//! the skip, so rows another pass holds can hide free ones: a claim that locks nothing is
//! confirmed with a count of the lane's due rows, and reported as a `Conflict` (retried after
//! a pause) when some wait, so that the lane is never called idle while work waits. The
//! per-flight counts that keep one dispatcher per flight (`whole_flights`,
//! `notices_in_order`) are statements of their own right after the claim, in its
//! transaction: 11g takes no aggregate beside `FOR UPDATE`.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use oracle::Row;
use oracle::sql_type::{OracleType, Timestamp};

use super::binds::{AsTimestamp, LONG_TEXT_BIND, Text, clip, required_time, run_batch};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::FailureKind;
use crate::store::outbox::{notices_in_order, whole_flights};
use crate::store::{
    Backoff, ClaimedNotice, ClaimedStateEvent, EventKind, FailedRow, Lane, OutboxOps,
    PendingCounts, Receipt, StoreError,
};

/// Message ids per read of their receipt times: one collection bind each.
const RECEIVED_BATCH: usize = 5_000;

fn event_kind(code: &str, op: &'static str) -> Result<EventKind, StoreError> {
    match code {
        "STATE" => Ok(EventKind::State),
        "TOMBSTONE" => Ok(EventKind::Tombstone),
        other => Err(StoreError::new(
            FailureKind::Other,
            op,
            format!("unknown KAFKA_SCHD.EVENT_KIND {other:?}"),
        )),
    }
}

/// A claimed state event.
fn state_event(row: &Row, op: &'static str) -> Result<ClaimedStateEvent, StoreError> {
    let kind: String = row.get("event_kind").map_err(at(op))?;
    let created: Timestamp = row.get("created_at").map_err(at(op))?;
    Ok(ClaimedStateEvent {
        event_id: row.get("event_id").map_err(at(op))?,
        flid: row.get("flid").map_err(at(op))?,
        state_version: row.get("state_version").map_err(at(op))?,
        kind: event_kind(&kind, op)?,
        created_at: required_time(created, op)?,
        attempts: row.get("attempts").map_err(at(op))?,
        message_id: row.get("message_id").map_err(at(op))?,
    })
}

/// A claimed notice.
fn notice(row: &Row, op: &'static str) -> Result<ClaimedNotice, StoreError> {
    let created: Timestamp = row.get("created_at").map_err(at(op))?;
    Ok(ClaimedNotice {
        event_id: row.get("event_id").map_err(at(op))?,
        flid: row.get("flid").map_err(at(op))?,
        change_kind: row.get("change_kind").map_err(at(op))?,
        payload: row.get("payload").map_err(at(op))?,
        message_id: row.get("message_id").map_err(at(op))?,
        created_at: required_time(created, op)?,
        attempts: row.get("attempts").map_err(at(op))?,
    })
}

/// `(id, count)` rows of a count statement over an id list, as a map.
fn counts(
    tx: &OracleTx<'_>,
    text: &'static str,
    op: &'static str,
    list_bind: &str,
    ids: &[i64],
) -> Result<HashMap<i64, i64>, StoreError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list = tx.id_list(ids, op)?;
    let rows = tx
        .conn()
        .query_as_named::<(i64, i64)>(text, &[(list_bind, &list)])
        .map_err(at(op))?;
    rows.collect::<oracle::Result<HashMap<i64, i64>>>()
        .map_err(at(op))
}

impl OracleTx<'_> {
    fn delete_sent(
        &mut self,
        text: &'static str,
        op: &'static str,
        event_ids: &[i64],
    ) -> Result<(), StoreError> {
        run_batch(
            self.conn(),
            text,
            op,
            &[("event_id", OracleType::Int64)],
            event_ids.len(),
            |batch, row| batch.set("event_id", &event_ids[row]),
        )
    }

    /// Confirms an empty claim: `Ok` when nothing of the lane is due, a `Conflict` when due
    /// rows wait behind rows another dispatcher's pass holds.
    fn confirm_idle(
        &mut self,
        text: &'static str,
        op: &'static str,
        now: NaiveDateTime,
        lane: Lane,
    ) -> Result<(), StoreError> {
        let due: i64 = self
            .conn()
            .query_row_as_named(
                text,
                &[
                    ("now", &AsTimestamp(Some(now))),
                    ("lanes", &lane.count),
                    ("lane", &lane.number),
                ],
            )
            .map_err(at(op))?;
        if due == 0 {
            return Ok(());
        }
        Err(StoreError::new(
            FailureKind::Conflict,
            op,
            format!(
                "{due} due rows of lane {} are held by another dispatcher's pass (or belong to a flight it holds); retrying",
                lane.number
            ),
        ))
    }

    fn retry(
        &mut self,
        text: &'static str,
        op: &'static str,
        failed: &[FailedRow],
        now: NaiveDateTime,
        backoff: Backoff,
    ) -> Result<(), StoreError> {
        let now = AsTimestamp(Some(now));
        run_batch(
            self.conn(),
            text,
            op,
            &[
                ("now", OracleType::Timestamp(6)),
                ("initial_secs", OracleType::BinaryDouble),
                ("max_secs", OracleType::BinaryDouble),
                ("event_id", OracleType::Int64),
                ("error", LONG_TEXT_BIND),
            ],
            failed.len(),
            |batch, row| {
                let f = &failed[row];
                batch.set("now", &now)?;
                batch.set("initial_secs", &backoff.initial_secs)?;
                batch.set("max_secs", &backoff.max_secs)?;
                batch.set("event_id", &f.event_id)?;
                batch.set("error", &Text(Some(clip(&f.error, 2000))))
            },
        )
    }
}

impl OutboxOps for OracleTx<'_> {
    fn set_repeatable_read(&mut self) -> Result<(), StoreError> {
        self.conn()
            .execute(sql::SET_REPEATABLE_READ, &[])
            .map(drop)
            .map_err(at("set_repeatable_read"))
    }

    fn claim_state_events(
        &mut self,
        now: NaiveDateTime,
        limit: i64,
        lane: Lane,
    ) -> Result<Vec<ClaimedStateEvent>, StoreError> {
        let op = "claim_state_events";
        let rows = self
            .conn()
            .query_named(
                sql::CLAIM_STATE_EVENTS,
                &[
                    ("now", &AsTimestamp(Some(now))),
                    ("row_limit", &limit),
                    ("lanes", &lane.count),
                    ("lane", &lane.number),
                ],
            )
            .map_err(at(op))?;
        let rows = rows
            .map(|row| state_event(&row.map_err(at(op))?, op))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let mut flids: Vec<i64> = rows.iter().map(|r| r.flid).collect();
        flids.dedup(); // the claim returns them by FLID
        let pending = counts(
            self,
            sql::COUNT_FLIGHT_PENDING_EVENTS,
            "count_flight_pending_events",
            "flids",
            &flids,
        )?;
        let rows = rows
            .into_iter()
            .map(|r| {
                let flight_pending = pending.get(&r.flid).copied().unwrap_or_default();
                (r, flight_pending)
            })
            .collect();
        let claimed = whole_flights(rows);
        if claimed.is_empty() {
            self.confirm_idle(sql::COUNT_DUE_STATE_EVENTS, op, now, lane)?;
        }
        Ok(claimed)
    }

    fn claim_change_notices(
        &mut self,
        now: NaiveDateTime,
        limit: i64,
        lane: Lane,
    ) -> Result<Vec<ClaimedNotice>, StoreError> {
        let op = "claim_change_notices";
        let rows = self
            .conn()
            .query_named(
                sql::CLAIM_CHANGE_NOTICES,
                &[
                    ("now", &AsTimestamp(Some(now))),
                    ("row_limit", &limit),
                    ("lanes", &lane.count),
                    ("lane", &lane.number),
                ],
            )
            .map_err(at(op))?;
        let rows = rows
            .map(|row| notice(&row.map_err(at(op))?, op))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let of_flights: Vec<i64> = rows
            .iter()
            .filter(|r| r.flid.is_some())
            .map(|r| r.event_id)
            .collect();
        let earlier = counts(
            self,
            sql::COUNT_EARLIER_CHANGE_NOTICES,
            "count_earlier_change_notices",
            "event_ids",
            &of_flights,
        )?;
        let rows = rows
            .into_iter()
            .map(|r| {
                let earlier_pending = earlier.get(&r.event_id).copied().unwrap_or_default();
                (r, earlier_pending)
            })
            .collect();
        let claimed = notices_in_order(rows);
        if claimed.is_empty() {
            self.confirm_idle(sql::COUNT_DUE_CHANGE_NOTICES, op, now, lane)?;
        }
        Ok(claimed)
    }

    fn delete_sent_state_events(&mut self, event_ids: &[i64]) -> Result<(), StoreError> {
        self.delete_sent(
            sql::DELETE_SENT_STATE_EVENTS,
            "delete_sent_state_events",
            event_ids,
        )
    }

    fn delete_sent_change_notices(&mut self, event_ids: &[i64]) -> Result<(), StoreError> {
        self.delete_sent(
            sql::DELETE_SENT_CHANGE_NOTICES,
            "delete_sent_change_notices",
            event_ids,
        )
    }

    fn retry_state_events(
        &mut self,
        failed: &[FailedRow],
        now: NaiveDateTime,
        backoff: Backoff,
    ) -> Result<(), StoreError> {
        self.retry(
            sql::RETRY_STATE_EVENTS,
            "retry_state_events",
            failed,
            now,
            backoff,
        )
    }

    fn retry_change_notices(
        &mut self,
        failed: &[FailedRow],
        now: NaiveDateTime,
        backoff: Backoff,
    ) -> Result<(), StoreError> {
        self.retry(
            sql::RETRY_CHANGE_NOTICES,
            "retry_change_notices",
            failed,
            now,
            backoff,
        )
    }

    fn select_received_times(
        &mut self,
        message_ids: &[i64],
    ) -> Result<HashMap<i64, Receipt>, StoreError> {
        let op = "select_received_times";
        let mut times = HashMap::with_capacity(message_ids.len());
        // A pass settles at most a few batches' worth of rows.
        for batch in message_ids.chunks(RECEIVED_BATCH) {
            let list = self.id_list(batch, op)?;
            let rows = self
                .conn()
                .query_named(sql::SELECT_RECEIVED_TIMES, &[("ids", &list)])
                .map_err(at(op))?;
            for row in rows {
                let row = row.map_err(at(op))?;
                let received: Timestamp = row.get("received_at").map_err(at(op))?;
                let recorded: Timestamp = row.get("recorded_at").map_err(at(op))?;
                let receipt = Receipt {
                    received_at: required_time(received, op)?,
                    recorded_at: required_time(recorded, op)?,
                };
                times.insert(row.get("message_id").map_err(at(op))?, receipt);
            }
        }
        Ok(times)
    }

    fn count_pending_events(&mut self) -> Result<PendingCounts, StoreError> {
        let op = "count_pending_events";
        let row = self
            .conn()
            .query_row_named(sql::COUNT_PENDING_EVENTS, &[])
            .map_err(at(op))?;
        Ok(PendingCounts {
            state_events: row.get("state_events").map_err(at(op))?,
            change_notices: row.get("change_notices").map_err(at(op))?,
        })
    }
}
