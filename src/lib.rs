#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod config;
pub mod failure;
pub mod protocol;
pub mod state;
pub mod store;

pub use failure::FailureKind;
