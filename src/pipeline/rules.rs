//! The site's rules for applying messages: built once from the
//! configuration (`config::Config::pipeline_rules`) by the command that
//! runs, and passed down to every rule. Nothing here changes from one
//! attempt to the next; what does is the [`Attempt`](super::Attempt).

use chrono::NaiveTime;

use crate::protocol::ParseOptions;
use crate::state::{DayMoves, DeleteGuard, MergeRules};
use crate::station::HistoryRule;

/// The size from which a message is streamed by default
/// (`snapshot.stream_from_bytes`): about 400 flights of a snapshot, below
/// which reading while writing gains nothing worth a thread.
pub const STREAM_FROM_BYTES: usize = 1024 * 1024;

/// Flights per part of a streamed snapshot, once the parts have grown to it
/// (they start at an eighth and double: `pipeline::snapshot::streamed`): a
/// day of 9,999 flights is eight parts, and costs a handful of statements
/// per table and part.
pub const STREAM_PART_FLIGHTS: usize = 2_000;

/// How messages are applied at this site.
#[derive(Clone, Debug)]
pub struct Rules {
    /// How messages are read.
    pub parse: ParseOptions,
    /// Local time at which an operation day begins.
    pub day_boundary: NaiveTime,
    /// How flight events and ad-hoc flights merge (`[merge]`).
    pub merge: MergeRules,
    /// Whether a snapshot may take a flight back from a later day
    /// (`station.day_moves`). An explicit replay overrides it for the
    /// messages it replays.
    pub day_moves: DayMoves,
    /// How much of its day a snapshot may delete before it is held for an
    /// operator (`[snapshot]`).
    pub delete_guard: DeleteGuard,
    /// From this size on (bytes), a message is read on a thread of its own
    /// and a snapshot's flights are written while the rest is still being
    /// read, a part at a time (`pipeline::snapshot::streamed`); a smaller
    /// message is read whole first, which costs no thread. Either way a
    /// message has the same outcome.
    pub stream_from_bytes: usize,
    /// Flights per part of a streamed snapshot (at least 1).
    pub stream_part_flights: usize,
    /// Which past operation days are retired (`cleanup.history_days`): a
    /// snapshot of one is DEAD rather than bringing back a day consumers
    /// were told is gone. `None` keeps every day.
    pub history: Option<HistoryRule>,
}
