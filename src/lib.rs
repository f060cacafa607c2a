#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod api;
pub mod cleanup;
pub mod config;
pub mod digest;
pub mod dispatch;
pub mod doorbell;
#[cfg(feature = "failpoints")]
pub mod failpoint;
pub mod failure;
pub mod histogram;
pub mod journal;
pub mod kafka;
pub mod lease_holder;
pub mod lost_tail;
pub mod mailbox;
pub mod memory;
pub mod operator;
pub mod pipeline;
pub mod protocol;
pub mod pump;
pub mod republish;
pub mod request;
pub mod resync;
pub mod state;
pub mod station;
pub mod store;
pub mod synth;

pub use failure::FailureKind;

/// Without the `failpoints` feature, failure points cost nothing.
#[cfg(not(feature = "failpoints"))]
#[macro_export]
macro_rules! failpoint {
    ($name:literal) => {};
}
