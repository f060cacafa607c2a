//! The gate of a dispatcher that runs alone (`flightstate dispatch`):
//! closed while a resync holds the pump lease.
//!
//! Why: a resync reads the state topic and then raises versions above what
//! it read. A dispatcher sending meanwhile could put on the topic a version
//! the resync never saw (a state event that came back pending with the
//! restored database, at a version below what the topic already holds). The
//! dispatcher of `flightstate run` already waits whenever its own pump does
//! not hold the lease; this gate makes a dispatcher without a pump wait too.
//! A pass under way when the resync takes the lease finishes first: the
//! resync's first step waits for the rows it holds.

use super::lease::held_by_resync;
use crate::dispatch::Gate;
use crate::station::utc_now;
use crate::store::{ReadOps, Store};

/// Open unless a resync holds the pump lease; asks the state database
/// (`select_pipeline_lease`, no lock) before every pass.
pub struct NotDuringResync<S: Store> {
    store: S,
}

impl<S: Store> NotDuringResync<S> {
    /// The gate over `store`'s pump lease.
    pub fn new(store: S) -> NotDuringResync<S> {
        NotDuringResync { store }
    }
}

impl<S: Store> Gate for NotDuringResync<S> {
    /// A lease that cannot be read leaves the gate open: the pass meets the
    /// same fault and backs off.
    fn is_open(&self) -> bool {
        match self.store.transaction(|tx| tx.pipeline_lease()) {
            Ok(lease) => !held_by_resync(lease.holder.as_deref(), lease.expires_at, utc_now()),
            Err(_) => true,
        }
    }

    fn why_closed(&self) -> &str {
        "`flightstate resync` holds the pump lease: the state topic is being brought above the \
         restored database's versions"
    }
}
