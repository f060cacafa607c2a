//! The freshness of what this process's dispatcher published: for each
//! outbox row a pass settles as sent, how long from the mailbox's receipt
//! of the message that made the change (`PROC_STATE.RECEIVED_AT`, on
//! flightstate's clock) until the broker confirmed the records of the
//! pass. One histogram per topic, which `/metrics` shows as
//! `flightstate_publish_freshness_seconds` (`docs/api.md`).
//!
//! A pass reads the receipt times in its own transaction, after its
//! deliveries are confirmed, and counts them only once it committed: a pass
//! rolled back sends its rows again, and they count then, once. Only rows
//! the message's own transaction registered count: the clean-up and a
//! resync register rows in a message's name long after it was applied.

use std::collections::HashMap;
use std::time::Duration;

use chrono::NaiveDateTime;

use super::OutboxError;
use crate::histogram::Histogram;
use crate::store::{OutboxOps, Receipt};

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
    /// Reads the receipts of the messages of `delivered` (the message id
    /// and `CREATED_AT` of each row the pass settles as sent) and ages the
    /// rows at `confirmed_at`. A row counts only when its message's own
    /// transaction registered it (its `CREATED_AT` is when the message's
    /// outcome was recorded): a tombstone of the clean-up or a state of a
    /// resync carries a message id too, long after its receipt. Rows whose
    /// message has no receipt are left out; a receipt after the
    /// confirmation (clocks stepped back) counts as 0.
    ///
    /// # Errors
    ///
    /// The [`OutboxError`] of the read; the pass rolls back.
    pub(super) fn read<T: OutboxOps + ?Sized>(
        tx: &mut T,
        delivered: &[(i64, NaiveDateTime)],
        confirmed_at: NaiveDateTime,
    ) -> Result<Ages, OutboxError> {
        if delivered.is_empty() {
            return Ok(Ages::default());
        }
        let mut distinct: Vec<i64> = delivered.iter().map(|(id, _)| *id).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let receipts = tx.select_received_times(&distinct)?;
        Ok(Ages::at(delivered, &receipts, confirmed_at))
    }

    fn at(
        delivered: &[(i64, NaiveDateTime)],
        receipts: &HashMap<i64, Receipt>,
        confirmed_at: NaiveDateTime,
    ) -> Ages {
        Ages(
            delivered
                .iter()
                .filter_map(|(id, created_at)| {
                    receipts.get(id).filter(|r| r.recorded_at == *created_at)
                })
                .map(|r| (confirmed_at - r.received_at).to_std().unwrap_or_default())
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

    fn receipt(received: i64, recorded: i64) -> Receipt {
        Receipt {
            received_at: at(received),
            recorded_at: at(recorded),
        }
    }

    #[test]
    fn each_row_its_message_registered_is_aged_by_the_message_s_receipt() {
        let receipts = HashMap::from([
            (7, receipt(0, 2)),
            (8, receipt(15, 16)),
            (9, receipt(40, 40)),
        ]);
        let ages = Ages::at(
            &[
                // Two rows of message 7, one of 8.
                (7, at(2)),
                (7, at(2)),
                (8, at(16)),
                // A tool's message: no receipt.
                (5, at(3)),
                // A clean-up's tombstone in message 8's name.
                (8, at(18)),
                // Received after the confirmation (a clock stepped back).
                (9, at(40)),
            ],
            &receipts,
            at(20),
        );
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
