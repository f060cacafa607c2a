//! How long applying a message takes, as the pump of this process saw it:
//! a histogram that `/metrics` shows when the read API runs in the same
//! process as the pump (`flightstate run`).

use crate::histogram::Histogram;

/// Upper bounds of the buckets, in seconds: a small event takes a few
/// milliseconds, a day's snapshot seconds.
const BOUNDS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The apply latency of this process's pump: each message at its share of
/// its transaction (a group commit's messages share one).
pub static APPLY_LATENCY: Histogram = Histogram::new(&BOUNDS);
