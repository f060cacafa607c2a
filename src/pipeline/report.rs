//! What applying a message did, as the pump, `flightstate apply` and the
//! notices report it. The rules produce these and the working set and the
//! dispatcher of `apply` read them, so they belong to none of them.

use chrono::NaiveDate;
use serde::Serialize;

use crate::state;

/// What applying a flight event, an ad-hoc flight or an SCHD DEL did, by
/// FLID in the order the message named them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EventReport {
    /// `TYPE/STYP` of the message.
    pub event: String,
    /// Flights created (operation day not known yet).
    pub created: Vec<i64>,
    /// Flights whose state changed.
    pub updated: Vec<i64>,
    /// Flights deleted (with tombstones).
    pub deleted: Vec<i64>,
    /// Flights named whose state the message left as it was.
    pub unchanged: Vec<i64>,
}

/// What applying a snapshot did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotReport {
    /// The operation day.
    pub operation_day: NaiveDate,
    /// Where the day came from.
    pub day_source: state::DaySource,
    /// The day's snapshot version after the message (unchanged by a replay).
    pub version: i64,
    /// Whether the message was the day's latest snapshot again (nothing
    /// changed).
    pub replay: bool,
    /// Flights in the snapshot.
    pub flights: usize,
    /// Flights created.
    pub created: usize,
    /// Flights whose state or day changed.
    pub updated: usize,
    /// Flights already in exactly that state.
    pub unchanged: usize,
    /// Flights deleted from the day (with tombstones).
    pub deleted: Vec<i64>,
    /// Flights the snapshot lists but left on the later day they belong to
    /// (`station.day_moves = forward_only`), state unchanged, in input
    /// order. Absent from the notice when there are none, so that the
    /// notices of snapshots that moved nothing keep their shape.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_on_later_day: Vec<i64>,
    /// In how many parts the flights were written while the message was
    /// still being read (`pipeline::streamed`); 0 when it was read whole.
    /// How the day was applied, not what was applied: not in the notice.
    #[serde(skip)]
    pub streamed_parts: usize,
}
