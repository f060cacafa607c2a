//! A Prometheus histogram of this process, kept in atomic counters so that
//! recording costs the thread that records no lock: the pump's apply
//! latency ([`APPLY_LATENCY`], here, where the pump records it and
//! `/metrics` and the history read it) and the freshness of what the
//! dispatcher published (`dispatch::PUBLISH_FRESHNESS`, with its per-row
//! ages). A histogram is a `static`, built by the `const`
//! [`Histogram::new`] with its bucket bounds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the apply latency's buckets, in seconds: a small event
/// takes a few milliseconds, a day's snapshot seconds.
const APPLY_BOUNDS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// How long applying a message takes, as the pump of this process saw it:
/// each message at its share of its transaction (a group commit's messages
/// share one). `/metrics` shows it when the read API runs in the same
/// process as the pump (`flightstate run`).
pub static APPLY_LATENCY: Histogram = Histogram::new(&APPLY_BOUNDS);

/// The most finite bounds a histogram takes: its buckets are a fixed array
/// (one more, for `+Inf`), so that a `static` needs no allocation.
pub const MAX_BOUNDS: usize = 15;

/// One histogram: a counter per bucket (the last for `+Inf`), the sum in
/// microseconds and the count.
pub struct Histogram {
    /// Upper bounds of the finite buckets, in seconds, ascending.
    bounds: &'static [f64],
    buckets: [AtomicU64; MAX_BOUNDS + 1],
    sum_micros: AtomicU64,
    count: AtomicU64,
}

/// A reading of a histogram, cumulative as Prometheus wants it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// `(upper bound, observations at or below it)`, the last bound `+Inf`.
    pub cumulative: Vec<(f64, u64)>,
    /// Seconds in all.
    pub sum_seconds: f64,
    /// Observations.
    pub count: u64,
}

impl Histogram {
    /// An empty histogram with buckets up to each of `bounds` (seconds,
    /// ascending) and `+Inf`.
    ///
    /// # Panics
    ///
    /// At compile time, for a `static`, when `bounds` has more than
    /// [`MAX_BOUNDS`] values.
    pub const fn new(bounds: &'static [f64]) -> Histogram {
        assert!(
            bounds.len() <= MAX_BOUNDS,
            "a histogram takes at most MAX_BOUNDS bounds"
        );
        Histogram {
            bounds,
            buckets: [const { AtomicU64::new(0) }; MAX_BOUNDS + 1],
            sum_micros: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    /// Counts `observations` that took `took` together (a group commit):
    /// each is counted at its share of the time.
    pub fn observe(&self, took: Duration, observations: usize) {
        let observations = observations.max(1) as u64;
        let each = took.as_secs_f64() / observations as f64;
        let bucket = self
            .bounds
            .iter()
            .position(|&b| each <= b)
            .unwrap_or(self.bounds.len());
        self.buckets[bucket].fetch_add(observations, Ordering::Relaxed);
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
        self.count.fetch_add(observations, Ordering::Relaxed);
    }

    /// The histogram now.
    pub fn read(&self) -> Reading {
        let mut total = 0;
        let mut cumulative = Vec::with_capacity(self.bounds.len() + 1);
        for (i, bucket) in self.buckets[..=self.bounds.len()].iter().enumerate() {
            total += bucket.load(Ordering::Relaxed);
            cumulative.push((self.bounds.get(i).copied().unwrap_or(f64::INFINITY), total));
        }
        Reading {
            cumulative,
            sum_seconds: self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6,
            count: self.count.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_cumulative_buckets_of_its_own_bounds() {
        let h = Histogram::new(&[0.001, 0.0025, 0.005, 0.01, 10.0]);
        h.observe(Duration::from_micros(800), 1);
        h.observe(Duration::from_millis(40), 4); // 10 ms each
        h.observe(Duration::from_secs(30), 1);
        let r = h.read();
        assert_eq!(r.count, 6);
        assert_eq!(
            r.cumulative,
            vec![
                (0.001, 1),
                (0.0025, 1),
                (0.005, 1),
                (0.01, 5),
                (10.0, 5),
                (f64::INFINITY, 6)
            ]
        );
        assert!((r.sum_seconds - 30.0408).abs() < 1e-9);
    }

    #[test]
    fn a_value_on_a_bound_counts_in_that_bucket_and_none_is_lost_past_the_last() {
        static H: Histogram = Histogram::new(&[0.05, 1.0, 10.0, 30.0]);
        H.observe(Duration::from_secs(10), 1);
        H.observe(Duration::from_secs(20), 1);
        H.observe(Duration::from_secs(3600), 1);
        let r = H.read();
        assert_eq!(
            r.cumulative,
            vec![
                (0.05, 0),
                (1.0, 0),
                (10.0, 1),
                (30.0, 2),
                (f64::INFINITY, 3)
            ]
        );
        assert_eq!(r.count, 3);
        assert!((r.sum_seconds - 3630.0).abs() < 1e-9);
    }

    #[test]
    fn an_empty_histogram_reads_zero_everywhere() {
        let r = Histogram::new(&[]).read();
        assert_eq!(r.cumulative, vec![(f64::INFINITY, 0)]);
        assert_eq!((r.count, r.sum_seconds), (0, 0.0));
    }
}
