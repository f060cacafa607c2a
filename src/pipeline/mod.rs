//! The processing rules that turn a message into state: snapshots (SCHD
//! DNLD/RESP), flight events (FLOP), ad-hoc flights (SCHD ADFT) and
//! deletion lists (SCHD DEL); requests join here.
//!
//! The pipeline talks to the state database only through the
//! [`Store`](crate::store::Store) trait and never sees SQL; it owns the
//! order of the steps and the outcome recorded for each message.

mod adft;
mod apply;
mod day_moves;
mod delete_guard;
mod error;
mod event;
mod flights;
mod group;
mod identity;
mod message_ref;
mod order_evidence;
mod replay;
mod replay_plan;
mod replay_tx;
mod report;
mod seqn_evidence;
mod settings;
mod snapshot;
mod snapshot_check;
mod snapshot_write;
mod streamed;
mod working;

pub use apply::{Applied, apply_message, bypass_message};
pub use error::PipelineError;
pub use group::{GROUP_MAX_BODY, Grouped, apply_group, prepare_grouped};
pub use identity::identity_key;
pub use replay::{ReplayError, replay_snapshot};
pub use replay_plan::{ReplayPlan, ReplayPolicy, VersionPolicy};
pub use report::{EventReport, SnapshotReport};
pub use settings::{STREAM_FROM_BYTES, STREAM_PART_FLIGHTS, Settings, check_fence};
pub use snapshot_check::MAX_SNAPSHOT_FLIGHTS;
