//! How long applying a message takes, as the pump of this process saw it:
//! a histogram that `/metrics` shows when the read API runs in the same
//! process as the pump (`flightstate run`). Atomic counters, so recording
//! costs the pump no lock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the buckets, in seconds: a small event takes a few
/// milliseconds, a day's snapshot seconds.
pub const BOUNDS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The histogram: one counter per bucket (the last for `+Inf`), the sum in
/// microseconds and the count.
pub struct ApplyLatency {
    buckets: [AtomicU64; BOUNDS.len() + 1],
    sum_micros: AtomicU64,
    count: AtomicU64,
}

/// The apply latency of this process's pump.
pub static APPLY_LATENCY: ApplyLatency = ApplyLatency {
    buckets: [const { AtomicU64::new(0) }; BOUNDS.len() + 1],
    sum_micros: AtomicU64::new(0),
    count: AtomicU64::new(0),
};

/// A reading of the histogram, cumulative as Prometheus wants it.
#[derive(Clone, Debug, PartialEq)]
pub struct LatencyReading {
    /// `(upper bound, messages at or below it)`, the last bound `+Inf`.
    pub cumulative: Vec<(f64, u64)>,
    /// Seconds in all.
    pub sum_seconds: f64,
    /// Messages observed.
    pub count: u64,
}

impl ApplyLatency {
    /// Counts `messages` applied together in `took` (a group commit): each
    /// is counted at its share of the time.
    pub fn observe(&self, took: Duration, messages: usize) {
        let messages = messages.max(1) as u64;
        let each = took.as_secs_f64() / messages as f64;
        let bucket = BOUNDS
            .iter()
            .position(|&b| each <= b)
            .unwrap_or(BOUNDS.len());
        self.buckets[bucket].fetch_add(messages, Ordering::Relaxed);
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
        self.count.fetch_add(messages, Ordering::Relaxed);
    }

    /// The histogram now.
    pub fn read(&self) -> LatencyReading {
        let mut total = 0;
        let mut cumulative = Vec::with_capacity(BOUNDS.len() + 1);
        for (i, bucket) in self.buckets.iter().enumerate() {
            total += bucket.load(Ordering::Relaxed);
            cumulative.push((BOUNDS.get(i).copied().unwrap_or(f64::INFINITY), total));
        }
        LatencyReading {
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
    fn observations_land_in_cumulative_buckets() {
        let h = ApplyLatency {
            buckets: [const { AtomicU64::new(0) }; BOUNDS.len() + 1],
            sum_micros: AtomicU64::new(0),
            count: AtomicU64::new(0),
        };
        h.observe(Duration::from_micros(800), 1);
        h.observe(Duration::from_millis(40), 4); // 10 ms each
        h.observe(Duration::from_secs(30), 1);
        let r = h.read();
        assert_eq!(r.count, 6);
        assert_eq!(r.cumulative[0], (0.001, 1));
        assert_eq!(r.cumulative[3], (0.01, 5));
        assert_eq!(r.cumulative.last(), Some(&(f64::INFINITY, 6)));
        assert!((r.sum_seconds - 30.0408).abs() < 1e-9);
    }
}
