//! How messages are applied at a site, and the fence every transaction of a
//! pump passes. Every rule reads these, so they live apart from the rules: a
//! rule that needs the settings must not have to depend on the module that
//! dispatches to it.

use chrono::NaiveTime;

use crate::FailureKind;
use crate::config::Config;
use crate::protocol::ParseOptions;
use crate::state::{DayMoves, DeleteGuard, MergeRules};
use crate::store::{PipelineLease, StoreError};

/// The size from which a message is streamed: about 400 flights of a
/// snapshot, below which reading and writing in turn costs a few
/// milliseconds more at most.
pub const STREAM_FROM_BYTES: usize = 1024 * 1024;

/// Flights per part of a streamed snapshot, once the parts have grown to it
/// (they start at an eighth and double: `pipeline::streamed`): a day of
/// 9,999 flights is eight parts (250, 500, 1,000, four of 2,000 and 249),
/// and costs a handful of statements per table and part.
pub const STREAM_PART_FLIGHTS: usize = 2_000;

/// How messages are applied at this site.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How messages are read.
    pub parse: ParseOptions,
    /// Local time at which an operation day begins.
    pub day_boundary: NaiveTime,
    /// How often a snapshot that lost the version race is retried at once.
    pub conflict_retries: u32,
    /// The pump's lease epoch: a transaction commits only while the lease is
    /// still at this epoch. `None` for one-off applies outside the pump.
    pub fence: Option<i64>,
    /// The attempt at which a message of a type flightstate does not apply
    /// is DEAD rather than FAILED(UNSUPPORTED), decided in the attempt
    /// itself so that `PROC_STATE.ATTEMPTS` and the reason agree. `None`
    /// (one-off applies outside the pump) never gives up.
    pub unsupported_threshold: Option<i32>,
    /// How flight events and ad-hoc flights merge (configuration
    /// `[merge]`).
    pub merge: MergeRules,
    /// From this size on (bytes), a message is read on a thread of its own
    /// and a snapshot's flights are written while the rest is still being
    /// read, a part at a time (`pipeline::streamed`); a smaller message is
    /// read whole first, which costs no thread. Either way a message has the
    /// same outcome.
    pub stream_from_bytes: usize,
    /// Flights per part of a streamed snapshot (at least 1).
    pub stream_part_flights: usize,
    /// Set by `flightstate replay` alone (`pipeline::replay`): the snapshot
    /// is applied again although the ledger knows it, since an operator
    /// asked for it with an explicit policy, and it answers no request.
    pub operator_replay: bool,
    /// Whether a snapshot may take a flight back from a later day
    /// (`station.day_moves`). An explicit replay overrides it for the
    /// messages it replays.
    pub day_moves: DayMoves,
    /// How much of its day a snapshot may delete before it is held for an
    /// operator (`[snapshot]`).
    pub delete_guard: DeleteGuard,
}

impl Settings {
    /// The settings a configuration gives.
    pub fn from_config(config: &Config) -> Settings {
        Settings {
            parse: config.protocol.parse_options(),
            day_boundary: config.day_boundary(),
            conflict_retries: 5,
            fence: None,
            unsupported_threshold: None,
            merge: config.merge.rules(),
            stream_from_bytes: STREAM_FROM_BYTES,
            stream_part_flights: STREAM_PART_FLIGHTS,
            operator_replay: false,
            day_moves: config.station.day_moves,
            delete_guard: config.snapshot.delete_guard(),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_config(&Config::default())
    }
}

/// The fence, the one check of the pump's epoch: refuses to go on when the
/// lease in `lease` (read under `PIPELINE_LOCK`) has moved past `held`, the
/// epoch this pump acquired. `None` (one-off applies outside the pump) is
/// never fenced.
///
/// The pipeline checks it as soon as a state transaction holds the lock, so
/// a fenced pump does no work; the pump checks it again before the commit
/// of every transaction that leaves a `PROC_STATE` (`pump::message_store`),
/// which covers the transactions the pipeline does not lock.
///
/// # Errors
///
/// A [`StoreError`] of kind [`FailureKind::Fenced`]: the transaction must
/// roll back and the pump stop; retrying cannot help.
pub fn check_fence(held: Option<i64>, lease: &PipelineLease) -> Result<(), StoreError> {
    match held {
        Some(held) if held != lease.epoch => Err(StoreError::new(
            FailureKind::Fenced,
            "check the pump lease",
            format!(
                "the pump lease moved to epoch {} (this pump holds {held}); not committing",
                lease.epoch
            ),
        )),
        _ => Ok(()),
    }
}
