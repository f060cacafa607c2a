//! The clean-up as a periodic job of `flightstate run` (`cleanup.every_secs`,
//! off by default): a thread that cleans up once per period while this
//! process may (its pump holds the lease, so a standby process never
//! competes with the active one), until told to stop.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{CleanupSettings, clean_up};
use crate::store::Store;

/// How often a waiting job looks at the stop flag: a stop is obeyed within
/// this, whatever the period.
const STOP_POLL: Duration = Duration::from_millis(200);

/// Cleans up every `every` until `stop` is set, each time `may_run` allows.
/// A failed clean-up is logged and tried again at the next period: the
/// batches it committed stand.
pub fn run_every<S: Store>(
    store: &S,
    settings: &CleanupSettings,
    every: Duration,
    stop: &AtomicBool,
    may_run: &dyn Fn() -> bool,
) {
    let mut next = Instant::now() + every;
    while !stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now < next {
            std::thread::sleep(STOP_POLL.min(next - now));
            continue;
        }
        next = now + every;
        if !may_run() {
            tracing::debug!("clean-up skipped: this process's pump does not hold the lease");
            continue;
        }
        match clean_up(
            store,
            settings,
            chrono::Utc::now().naive_utc(),
            false,
            &mut |_, _| !stop.load(Ordering::SeqCst),
        ) {
            Ok(report) if report.total() > 0 => tracing::info!(
                flights = report.flights.len(),
                days = report.days.len(),
                effect_calls = report.effect_calls,
                proc_states = report.proc_states,
                actions = report.actions,
                "clean-up done"
            ),
            Ok(_) => tracing::debug!("clean-up found nothing to remove"),
            Err(e) => tracing::warn!(
                error = %format!("{e:#}"),
                "clean-up failed; it runs again at the next period"
            ),
        }
    }
}
