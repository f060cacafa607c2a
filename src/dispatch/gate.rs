//! When a dispatcher may dispatch. `flightstate run` dispatches only while
//! its own pump holds the lease: two `run` processes (active and standby)
//! would otherwise both send the outbox, and a flight's versions could
//! leave from two producers in either order. `flightstate dispatch` alone
//! dispatches except while `flightstate resync` holds the pump lease (its
//! gate is the resync's); the claim keeps a flight with one dispatcher at a
//! time whatever runs. [`Always`] is open for good ([`Dispatcher::run`](super::Dispatcher::run)).

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the dispatcher may start a pass now. Asked before every pass of
/// every lane; a pass already started finishes.
pub trait Gate: Sync {
    /// `true` while passes may run.
    fn is_open(&self) -> bool;

    /// Why the gate is closed, for the one log line that says so.
    fn why_closed(&self) -> &str;
}

/// A gate that is always open.
#[derive(Clone, Copy, Debug, Default)]
pub struct Always;

impl Gate for Always {
    fn is_open(&self) -> bool {
        true
    }

    fn why_closed(&self) -> &str {
        "never closed"
    }
}

/// Logs the gate closing and opening once each, however many lanes see it.
#[derive(Debug, Default)]
pub(crate) struct GateLog {
    closed: AtomicBool,
}

impl GateLog {
    /// Whether `gate` is open now; logs a change since the last look.
    pub(crate) fn open(&self, gate: &dyn Gate) -> bool {
        let open = gate.is_open();
        let was_closed = self.closed.swap(!open, Ordering::SeqCst);
        if !open && !was_closed {
            tracing::info!(why = gate.why_closed(), "the dispatcher waits");
        } else if open && was_closed {
            tracing::info!("the dispatcher dispatches now");
        }
        open
    }
}
