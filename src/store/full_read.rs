//! Whole flight states read in one read-only snapshot, for the read API.
//! These drive a [`Store`]'s transaction while the [`ReadOps`] they use are
//! part of every transaction, so they live apart from both.

use chrono::NaiveDate;

use super::{ReadOps, StateTx, Store, StoreError};
use crate::state::StoredFlight;

/// Which flights a full read covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Every stored flight.
    All,
    /// The flights of one operation day.
    Day(NaiveDate),
}

/// Reads the full state of every flight of `selection` in one read-only
/// snapshot, `page_size` flights at a time in FLID order, and hands each
/// page to `sink` before reading the next: memory holds one page whatever
/// the number of flights. A page costs one statement for its FLIDs and one
/// per table ([`StateTx::load_flights`], the read the dispatcher builds
/// unstored documents with), never one per flight.
///
/// # Errors
///
/// A [`StoreError`] of the read, or the error `sink` returns (which ends
/// the read and rolls the transaction back).
pub fn read_states<S, E, F>(
    store: &S,
    selection: Selection,
    page_size: usize,
    mut sink: F,
) -> Result<usize, E>
where
    S: Store,
    E: From<StoreError>,
    F: FnMut(Vec<StoredFlight>) -> Result<(), E>,
{
    let limit = i64::try_from(page_size.max(1)).unwrap_or(i64::MAX);
    let day = match selection {
        Selection::All => None,
        Selection::Day(day) => Some(day),
    };
    store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        // Each page waits for the reader (an HTTP client) to take the one
        // before; a slow client is no frozen holder: the read holds no lock.
        tx.set_idle_limit(None)?;
        let mut after = i64::MIN;
        let mut total = 0;
        loop {
            let flids = tx.flid_page(day, after, limit)?;
            let Some(&last) = flids.last() else {
                break;
            };
            let mut flights: Vec<StoredFlight> = tx.load_flights(&flids)?.into_values().collect();
            flights.sort_unstable_by_key(|f| f.state.flid);
            total += flights.len();
            sink(flights)?;
            if flids.len() < page_size.max(1) {
                break;
            }
            after = last;
        }
        Ok(total)
    })
}

/// The full states of `flids` (absent FLIDs are simply missing), in one
/// read-only snapshot, in FLID order.
///
/// # Errors
///
/// A [`StoreError`] of the read.
pub fn read_flights<S: Store>(store: &S, flids: &[i64]) -> Result<Vec<StoredFlight>, StoreError> {
    store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        let mut flights: Vec<StoredFlight> = tx.load_flights(flids)?.into_values().collect();
        flights.sort_unstable_by_key(|f| f.state.flid);
        Ok(flights)
    })
}
