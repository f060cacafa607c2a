//! The freshness of what this process's dispatcher published: for each
//! outbox row a pass settles as sent, how long from the mailbox's receipt
//! of the message that made the change (`PROC_STATE.RECEIVED_AT`, on
//! flightstate's clock) until the broker confirmed the records of the
//! pass. One histogram per topic, which `/metrics` shows as
//! `flightstate_publish_freshness_seconds` (`docs/api.md`).
//!
//! A pass reads the receipt times in its own transaction, after its
//! deliveries are confirmed, and counts them only once it committed: a pass
//! rolled back sends its rows again, and they count then, once.

use std::collections::HashMap;
use std::time::Duration;

use chrono::NaiveDateTime;

use super::OutboxError;
use crate::histogram::Histogram;
use crate::store::OutboxOps;

/// Upper bounds of the buckets, in seconds: a pipeline keeping up
/// publishes within a second; a backlog, an outage or a catch-up takes
/// minutes.
const BOUNDS: [f64; 11] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0];

/// The freshness histograms of this process's dispatcher, one per topic.
pub struct Freshness {
    /// Rows of the state topic (`KAFKA_SCHD`): every row of a flight
    /// whose current state (or tombstone) the broker confirmed.
    pub state: Histogram,
    /// Rows of the change topic (`KAFKA_MSG`).
    pub change: Histogram,
}

/// The freshness of what this process's dispatcher published.
pub static PUBLISH_FRESHNESS: Freshness = Freshness {
    state: Histogram::new(&BOUNDS),
    change: Histogram::new(&BOUNDS),
};

/// The ages of a pass's delivered rows at the broker's confirmation, to be
/// counted once the pass commits.
#[derive(Debug, Default)]
pub(super) struct Ages(Vec<Duration>);

impl Ages {
    /// Reads the receipt times of `message_ids` (a message id per row the
    /// pass settles as sent, repeated for rows of the same message) and
    /// ages them at `confirmed_at`. Rows whose message has no receipt time
    /// are left out; a receipt after the confirmation (clocks stepped back)
    /// counts as 0.
    ///
    /// # Errors
    ///
    /// The [`OutboxError`] of the read; the pass rolls back.
    pub(super) fn read<T: OutboxOps + ?Sized>(
        tx: &mut T,
        message_ids: &[i64],
        confirmed_at: NaiveDateTime,
    ) -> Result<Ages, OutboxError> {
        let mut distinct = message_ids.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let received = tx.select_received_times(&distinct)?;
        Ok(Ages::at(message_ids, &received, confirmed_at))
    }

    fn at(
        message_ids: &[i64],
        received: &HashMap<i64, NaiveDateTime>,
        confirmed_at: NaiveDateTime,
    ) -> Ages {
        Ages(
            message_ids
                .iter()
                .filter_map(|id| received.get(id))
                .map(|at| (confirmed_at - *at).to_std().unwrap_or_default())
                .collect(),
        )
    }

    /// Counts the ages into `histogram`, one observation per row.
    pub(super) fn observe(&self, histogram: &Histogram) {
        for age in &self.0 {
            histogram.observe(*age, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> NaiveDateTime {
        chrono::DateTime::from_timestamp(1_800_000_000 + secs, 0)
            .expect("a time")
            .naive_utc()
    }

    #[test]
    fn each_row_is_aged_by_its_message_and_rows_without_a_receipt_are_left_out() {
        let received = HashMap::from([(7, at(0)), (8, at(15)), (9, at(40))]);
        // Two rows of message 7, one of 8, one of a tool's message (5),
        // one received after the confirmation (9).
        let ages = Ages::at(&[7, 7, 8, 5, 9], &received, at(20));
        assert_eq!(
            ages.0,
            vec![
                Duration::from_secs(20),
                Duration::from_secs(20),
                Duration::from_secs(5),
                Duration::ZERO
            ]
        );
        let h = Histogram::new(&BOUNDS);
        ages.observe(&h);
        let r = h.read();
        assert_eq!(r.count, 4);
        let le = |bound: f64| {
            r.cumulative
                .iter()
                .find(|(b, _)| *b == bound)
                .map(|(_, n)| *n)
        };
        assert_eq!(le(0.05), Some(1));
        assert_eq!(le(5.0), Some(2));
        assert_eq!(le(10.0), Some(2));
        assert_eq!(le(30.0), Some(4));
    }
}
