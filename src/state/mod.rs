//! Flight state and the pure rules that change it: building a flight's full
//! state from a record, comparing states, and deciding the operation day.
//!
//! Nothing here touches a database or the network, so every rule can be
//! tested, and property-tested, in memory; `store` persists what this
//! module computes.

pub(crate) mod columns;
mod day_moves;
mod diff;
mod document;
mod flight;
mod from_record;
mod json;
mod mass_delete;
mod merge;
mod operation_day;
mod snapshot_plan;

pub use columns::{CODE_CHARS, ColumnKind, ColumnValues, KEY_CHARS, TEXT_CHARS, TableRow, TooLong};
pub use day_moves::DayMoves;
pub use diff::changed_parts;
pub use document::{StateDocument, state_document};
#[cfg(any(feature = "postgres", feature = "oracle"))]
pub(crate) use flight::flight_tables;
pub use flight::{
    Bridge, Carousel, Chock, Chute, Counter, Delay, FlightFields, FlightState, Gate, RoutePoint,
    Stand, StoredFlight,
};
pub use from_record::{RecordError, state_from_record};
pub use mass_delete::{DeleteGuard, MassDelete};
pub use merge::{
    AbsentFields, CollectionKind, CollectionRules, Effect, FlightEvent, MERGE_TABLE, MergeError,
    MergeRule, MergeRules, Semantics, merge_adft, merge_event, merge_rule, prepare_event,
};
pub use operation_day::{DaySource, UndeterminedDay, day_of, snapshot_day};
pub use snapshot_plan::{DuplicateFlid, PlannedWrite, SnapshotPlan, plan_snapshot};
