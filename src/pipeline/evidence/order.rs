//! Evidence of the upstream's order (docs/open-questions.md, rule M):
//! per operation day, the arrivals that contradict the senders' clocks
//! (META DTTM), counted in the state transaction that applies the message.
//!
//! Rule M lets a same-day snapshot overwrite what flight events wrote
//! before it; that is right only if messages arrive in the order the
//! upstream sent them. Two arrivals say it was not:
//!
//! - a **late event**: a flight event (FLOP, ADFT, DEL) applied to a
//!   flight of day D after D's latest snapshot, although its DTTM is older
//!   than the snapshot's;
//! - a **stale snapshot**: a snapshot of D applied after events of D
//!   (since D's previous snapshot) whose DTTM is newer than its own — it
//!   overwrote newer data.
//!
//! The rule itself is unchanged; these counts only show whether its
//! assumption holds at a site. A flight without an operation day yet
//! counts for no day. A replayed snapshot is not counted again.

use std::collections::BTreeMap;

use chrono::{NaiveDate, NaiveDateTime};

use super::seqn::{self, Sent};
use crate::pipeline::PipelineError;
use crate::pipeline::attempt::Attempt;
use crate::store::{DayOrder, StateTx};

/// Counts a snapshot of `day` into the day's evidence: a stale snapshot
/// when an event of the day since the previous snapshot is newer. The
/// snapshot becomes the one later events are compared with.
pub(super) fn on_snapshot(day: &mut DayOrder, message_id: i64, dttm: NaiveDateTime) {
    if let (Some(newest), Some(event)) = (day.newest_event_dttm, day.newest_event_id)
        && newest > dttm
    {
        day.stale_snapshots += 1;
        day.last_stale_snapshot_id = Some(message_id);
        day.stale_snapshot_over_id = Some(event);
    }
    day.snapshot_dttm = Some(dttm);
    day.snapshot_message_id = Some(message_id);
    day.newest_event_dttm = None;
    day.newest_event_id = None;
}

/// Counts a flight event applied to a flight of the day: a late event
/// when the day's snapshot is newer.
pub(super) fn on_event(day: &mut DayOrder, message_id: i64, dttm: NaiveDateTime) {
    if let (Some(snapshot), Some(id)) = (day.snapshot_dttm, day.snapshot_message_id)
        && dttm < snapshot
    {
        day.late_events += 1;
        day.last_late_event_id = Some(message_id);
        day.late_event_after_id = Some(id);
    }
    if day.newest_event_dttm.is_none_or(|newest| dttm > newest) {
        day.newest_event_dttm = Some(dttm);
        day.newest_event_id = Some(message_id);
    }
}

/// The snapshot step: counts the snapshot `message` of `day` (its order
/// evidence and its sender's SEQN) in the snapshot's transaction.
///
/// # Errors
///
/// A [`StoreError`](crate::store::StoreError) reading or writing the
/// evidence, or [`MetaUnread`](crate::pipeline::error::MetaUnread) for a
/// message not read.
pub(in crate::pipeline) fn count_snapshot<T: StateTx>(
    tx: &mut T,
    day: NaiveDate,
    message: &Attempt<'_>,
) -> Result<(), PipelineError> {
    let mut evidence = tx
        .select_order_evidence(day)?
        .unwrap_or_else(|| DayOrder::new(day));
    on_snapshot(&mut evidence, message.message_id, message.read_meta()?.dttm);
    tx.upsert_order_evidence(&evidence, message.now)?;
    Ok(seqn::count(tx, Sent::of(message).as_slice(), message.now)?)
}

/// Counts flight-level messages, in order, each with the operation days of
/// the flights it named (as they stood before it), in their transaction.
///
/// # Errors
///
/// A [`StoreError`](crate::store::StoreError) reading or writing the
/// evidence, or [`MetaUnread`](crate::pipeline::error::MetaUnread) for a
/// message not read.
pub(in crate::pipeline) fn count_flight_messages<T: StateTx>(
    tx: &mut T,
    messages: &[(&Attempt<'_>, Vec<NaiveDate>)],
) -> Result<(), PipelineError> {
    let Some((last, _)) = messages.last() else {
        return Ok(());
    };
    let mut days: BTreeMap<NaiveDate, DayOrder> = BTreeMap::new();
    for (message, of_days) in messages {
        for day in of_days {
            if !days.contains_key(day) {
                let evidence = tx
                    .select_order_evidence(*day)?
                    .unwrap_or_else(|| DayOrder::new(*day));
                days.insert(*day, evidence);
            }
            if let Some(evidence) = days.get_mut(day) {
                on_event(evidence, message.message_id, message.read_meta()?.dttm);
            }
        }
    }
    for evidence in days.values() {
        tx.upsert_order_evidence(evidence, last.now)?;
    }
    let sent: Vec<Sent<'_>> = messages.iter().filter_map(|(m, _)| Sent::of(m)).collect();
    Ok(seqn::count(tx, &sent, last.now)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(hour: u32, minute: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2026, 12, 1)
            .and_then(|d| d.and_hms_opt(hour, minute, 0))
            .expect("a real time")
    }

    #[test]
    fn an_event_older_than_the_snapshot_before_it_is_late() {
        let mut day = DayOrder::new(at(0, 0).date());
        on_event(&mut day, 1, at(9, 0));
        on_snapshot(&mut day, 2, at(10, 0));
        assert_eq!(day.stale_snapshots, 0);
        on_event(&mut day, 3, at(9, 59));
        on_event(&mut day, 4, at(10, 0));
        on_event(&mut day, 5, at(10, 1));
        assert_eq!(day.late_events, 1);
        assert_eq!(
            (day.last_late_event_id, day.late_event_after_id),
            (Some(3), Some(2))
        );
        assert_eq!(
            (day.newest_event_dttm, day.newest_event_id),
            (Some(at(10, 1)), Some(5))
        );
    }

    #[test]
    fn a_snapshot_older_than_an_event_since_the_last_snapshot_is_stale() {
        let mut day = DayOrder::new(at(0, 0).date());
        on_event(&mut day, 1, at(11, 0));
        on_event(&mut day, 2, at(10, 30));
        on_snapshot(&mut day, 3, at(10, 45));
        assert_eq!(day.stale_snapshots, 1);
        assert_eq!(
            (day.last_stale_snapshot_id, day.stale_snapshot_over_id),
            (Some(3), Some(1))
        );
        // The events before it were overwritten: the next snapshot is not
        // compared with them.
        on_snapshot(&mut day, 4, at(10, 50));
        assert_eq!(day.stale_snapshots, 1);
        assert_eq!(day.newest_event_dttm, None);
    }
}
