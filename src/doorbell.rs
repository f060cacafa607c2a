//! A doorbell between the threads of one `flightstate run`: the pump rings
//! it when it commits, and the dispatcher's lanes, idle, wake at the ring
//! instead of at the end of their idle poll. A message's change notice then
//! leaves as soon as its transaction committed, while the poll stays the
//! fallback for what no ring announces (rows due for a retry, rows another
//! process wrote). Where nobody rings (`flightstate dispatch` alone), a
//! wait is the plain sleep it replaces.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Longest a wait sleeps before it looks at its stop flags again.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// Counts rings; a waiter remembers the count it last saw, so a ring
/// during its pass is not lost.
#[derive(Clone, Debug, Default)]
pub struct Doorbell(Arc<(Mutex<u64>, Condvar)>);

impl Doorbell {
    /// A doorbell nobody has rung.
    pub fn new() -> Doorbell {
        Doorbell::default()
    }

    /// Rings: wakes every waiter.
    pub fn ring(&self) {
        let (rings, bell) = &*self.0;
        let mut rings = rings.lock().unwrap_or_else(PoisonError::into_inner);
        *rings = rings.wrapping_add(1);
        bell.notify_all();
    }

    /// The rings so far: what a waiter saw before its pass.
    pub fn rings(&self) -> u64 {
        *self.0.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until a ring after `seen`, `limit` has passed, or one of
    /// `stop` is set, whichever comes first.
    pub fn wait(&self, seen: u64, limit: Duration, stop: &[&AtomicBool]) {
        let deadline = Instant::now() + limit;
        let (rings, bell) = &*self.0;
        let mut rings = rings.lock().unwrap_or_else(PoisonError::into_inner);
        while *rings == seen && !stop.iter().any(|s| s.load(Ordering::SeqCst)) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            rings = bell
                .wait_timeout(rings, left.min(STOP_CHECK))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_during_the_pass_ends_the_wait_at_once() {
        let bell = Doorbell::new();
        let seen = bell.rings();
        bell.ring();
        let started = Instant::now();
        bell.wait(seen, Duration::from_secs(60), &[]);
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "woken by the ring, not by the limit"
        );
    }

    #[test]
    fn a_ring_from_another_thread_wakes_the_waiter() {
        let bell = Doorbell::new();
        let seen = bell.rings();
        let ringer = bell.clone();
        let started = Instant::now();
        let thread = std::thread::spawn(move || ringer.ring());
        bell.wait(seen, Duration::from_secs(60), &[]);
        thread.join().expect("the ringer");
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "woken by the ring, not by the limit"
        );
        assert_eq!(bell.rings(), seen + 1);
    }

    #[test]
    fn a_stop_ends_the_wait_without_a_ring() {
        let bell = Doorbell::new();
        let stop = AtomicBool::new(true);
        let started = Instant::now();
        bell.wait(bell.rings(), Duration::from_secs(60), &[&stop]);
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "ended by the stop, not by the limit"
        );
    }

    #[test]
    fn without_a_ring_the_wait_is_the_limit() {
        let bell = Doorbell::new();
        let started = Instant::now();
        bell.wait(bell.rings(), Duration::from_millis(120), &[]);
        assert!(started.elapsed() >= Duration::from_millis(120));
    }
}
