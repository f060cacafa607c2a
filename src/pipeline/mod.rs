//! The processing rules that turn a message into state, one folder each:
//! snapshots (SCHD DNLD/RESP: `snapshot`, with an operator's replay),
//! flight-level messages (FLOP, SCHD ADFT, SCHD DEL, and the pump's group
//! commits: `flights`), and the evidence counted of the upstream's order
//! (`evidence`). Requests join in `snapshot`: an answer completes one.
//!
//! The caller builds an [`Attempt`] and [`apply_attempt`] hands it to the
//! rule for the message's kind with the site's [`Rules`]. The pipeline
//! talks to the state database only through the
//! [`Store`](crate::store::Store) trait and never sees SQL; it owns the
//! order of the steps and the outcome recorded for each message.

mod apply;
mod attempt;
mod error;
mod evidence;
mod flights;
mod identity;
mod outcome;
mod rules;
mod snapshot;

pub use apply::{apply_attempt, apply_message, bypass_message};
pub use attempt::{Attempt, Leased, ReplayPolicy, VersionPolicy};
pub use error::PipelineError;
pub use flights::{GROUP_MAX_BODY, Grouped, apply_group, prepare_grouped};
pub use identity::identity_key;
pub use outcome::{Applied, EventReport, SnapshotReport};
pub use rules::{Rules, STREAM_FROM_BYTES, STREAM_PART_FLIGHTS};
pub use snapshot::{MAX_SNAPSHOT_FLIGHTS, ReplayError, ReplayPlan, replay_snapshot};
