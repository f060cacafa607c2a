//! `flightstate run` (pump, effect worker and dispatcher in one process) as
//! a child process against real PostgreSQL, MariaDB and tansu, its JSON log
//! read from stderr, one module per part:
//!
//! - `doorbell`: nothing waits out an idle poll;
//! - `outages`: each link cut or frozen, shorter and longer than its
//!   timeout, in the middle of a stream;
//! - `takeover`: an active and a standby process, the active one killed;
//! - `freeze`: the same, the active one frozen where it holds something;
//! - `freshness`: the freshness of what was published, on `/metrics`.
#![cfg(feature = "postgres")]

#[path = "../common/mod.rs"]
mod common;
#[path = "../helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "../helpers/pumping/mod.rs"]
mod pumping;
#[path = "../helpers/reading/mod.rs"]
mod reading;
#[path = "../helpers/running/mod.rs"]
mod running;

mod doorbell;
mod freeze;
mod freshness;
mod outages;
mod takeover;
