//! The last 24 hours of the levels the status page charts, kept in process
//! memory: once a minute a sampler thread reads the mailbox backlog and the
//! outbox backlog (one light read each) and the pump's apply-latency
//! histogram, and appends one fixed-size sample to a ring of
//! [`CAPACITY`]. The ring is allocated whole at start, so a full history
//! costs what an empty one does; a restart starts it empty.
//!
//! Only levels live here: a backlog at an instant is recorded nowhere
//! else. What happened per minute (messages applied, dead, held) is read
//! from `PROC_STATE`'s own times instead, so it survives restarts and
//! covers the minutes before the process started.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use chrono::NaiveDateTime;

use super::status::{age_secs, now};
use crate::histogram::Reading;
use crate::mailbox::{Backlog, Mailbox};
use crate::store::{OutboxBacklog, ReadOps, Store};

/// Samples kept: one a minute for 24 hours.
pub const CAPACITY: usize = 24 * 60;

/// How often the sampler reads.
pub const EVERY: Duration = Duration::from_secs(60);

/// The levels at one minute; `None` where the part could not be read
/// (or, for the latency, no message was applied since the last sample).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// When it was read (UTC, to the second).
    pub at: NaiveDateTime,
    /// Mailbox rows pending.
    pub mailbox_pending: Option<i64>,
    /// Seconds the oldest pending mailbox row has waited.
    pub mailbox_oldest_secs: Option<i64>,
    /// `KAFKA_SCHD` rows to send.
    pub state_pending: Option<i64>,
    /// Seconds the oldest of them has waited.
    pub state_oldest_secs: Option<i64>,
    /// `KAFKA_MSG` rows to send.
    pub change_pending: Option<i64>,
    /// Seconds the oldest of them has waited.
    pub change_oldest_secs: Option<i64>,
    /// Median apply time of the messages applied since the last sample,
    /// in seconds (a bucket's upper bound of the histogram).
    pub apply_p50: Option<f64>,
    /// 99th percentile, likewise.
    pub apply_p99: Option<f64>,
}

struct Ring {
    samples: VecDeque<Sample>,
    /// The histogram at the last sample: the next one's counts are the
    /// difference.
    last_latency: Option<Vec<(f64, u64)>>,
}

/// The ring of samples, shared by the sampler and the page.
pub struct History {
    ring: Mutex<Ring>,
}

impl Default for History {
    fn default() -> Self {
        History::new()
    }
}

impl History {
    /// An empty history, its whole ring allocated.
    pub fn new() -> History {
        History {
            ring: Mutex::new(Ring {
                samples: VecDeque::with_capacity(CAPACITY),
                last_latency: None,
            }),
        }
    }

    /// Appends the levels read at `at`, dropping the oldest sample once the
    /// ring is full.
    pub fn record(
        &self,
        at: NaiveDateTime,
        mailbox: Option<&Backlog>,
        outbox: Option<&OutboxBacklog>,
        latency: &Reading,
    ) {
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let (apply_p50, apply_p99) = match &ring.last_latency {
            Some(before) => {
                let since: Vec<(f64, u64)> = latency
                    .cumulative
                    .iter()
                    .zip(before)
                    .map(|((bound, now), (_, then))| (*bound, now.saturating_sub(*then)))
                    .collect();
                (quantile(&since, 0.5), quantile(&since, 0.99))
            }
            None => (None, None),
        };
        ring.last_latency = Some(latency.cumulative.clone());
        if ring.samples.len() == CAPACITY {
            ring.samples.pop_front();
        }
        ring.samples.push_back(Sample {
            at,
            mailbox_pending: mailbox.map(|b| b.pending),
            mailbox_oldest_secs: mailbox.map(|b| b.oldest_age_secs.unwrap_or(0)),
            state_pending: outbox.map(|o| o.state_events),
            state_oldest_secs: outbox.map(|o| age_secs(o.state_oldest, at).unwrap_or(0)),
            change_pending: outbox.map(|o| o.change_notices),
            change_oldest_secs: outbox.map(|o| age_secs(o.change_oldest, at).unwrap_or(0)),
            apply_p50,
            apply_p99,
        });
    }

    /// The samples taken at or after `since`, oldest first.
    pub fn since(&self, since: NaiveDateTime) -> Vec<Sample> {
        let ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        ring.samples
            .iter()
            .filter(|s| s.at >= since)
            .copied()
            .collect()
    }
}

/// The `q` quantile of a cumulative histogram `(upper bound, count at or
/// below)`: the first bound whose count reaches `q` of the total; the last
/// finite bound stands for `+Inf`. `None` when it counts nothing.
pub fn quantile(cumulative: &[(f64, u64)], q: f64) -> Option<f64> {
    let total = cumulative.last()?.1;
    if total == 0 {
        return None;
    }
    let wanted = (q * total as f64).ceil().max(1.0) as u64;
    let last_finite = cumulative
        .iter()
        .rev()
        .map(|(b, _)| *b)
        .find(|b| b.is_finite());
    cumulative
        .iter()
        .find(|(_, count)| *count >= wanted)
        .map(|(bound, _)| *bound)
        .map(|b| if b.is_finite() { Some(b) } else { last_finite })
        .unwrap_or(last_finite)
}

/// Reads the levels now and records them: the outbox in a read-only
/// transaction, the mailbox on its own. A part that cannot be read is a
/// gap in its chart, not an error.
pub fn sample<S: Store>(store: &S, mailbox: Option<&Mailbox>, history: &History) {
    let outbox = store
        .transaction(|tx| {
            tx.set_read_only_snapshot()?;
            tx.outbox_backlog()
        })
        .map_err(|e| tracing::debug!(error = format!("{e:#}"), "history: outbox not read"))
        .ok();
    let mailbox = mailbox.and_then(|m| {
        m.backlog()
            .map_err(|e| tracing::debug!(error = format!("{e:#}"), "history: mailbox not read"))
            .ok()
    });
    history.record(
        now(),
        mailbox.as_ref(),
        outbox.as_ref(),
        &crate::histogram::APPLY_LATENCY.read(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(cumulative: &[(f64, u64)]) -> Reading {
        Reading {
            cumulative: cumulative.to_vec(),
            sum_seconds: 0.0,
            count: cumulative.last().map_or(0, |c| c.1),
        }
    }

    #[test]
    fn quantiles_come_from_the_minute_s_counts() {
        let h = [(0.001, 50), (0.01, 98), (0.1, 100), (f64::INFINITY, 100)];
        assert_eq!(quantile(&h, 0.5), Some(0.001));
        assert_eq!(quantile(&h, 0.99), Some(0.1));
        assert_eq!(quantile(&[(0.001, 0), (f64::INFINITY, 0)], 0.5), None);
        assert_eq!(
            quantile(&[(0.001, 0), (f64::INFINITY, 3)], 0.5),
            Some(0.001)
        );
    }

    #[test]
    fn the_ring_keeps_the_last_day_and_differences_the_histogram() {
        let history = History::new();
        let start = NaiveDateTime::default();
        let t = |m: i64| start + chrono::Duration::minutes(m);
        history.record(
            t(0),
            None,
            None,
            &reading(&[(0.01, 10), (f64::INFINITY, 10)]),
        );
        history.record(
            t(1),
            None,
            None,
            &reading(&[(0.01, 10), (f64::INFINITY, 14)]),
        );
        let samples = history.since(start);
        assert_eq!(samples[0].apply_p50, None, "nothing to difference yet");
        assert_eq!(
            samples[1].apply_p50,
            Some(0.01),
            "the 4 slow ones: last finite bound"
        );
        for m in 2..(CAPACITY as i64 + 10) {
            history.record(t(m), None, None, &reading(&[(f64::INFINITY, 14)]));
        }
        let samples = history.since(start);
        assert_eq!(samples.len(), CAPACITY);
        assert_eq!(samples[0].at, t(10));
    }
}
