//! Outbound requests (`docs/requests.md`): a request registered, its call
//! written into the mailbox's `COUTMSGS` once, the answers that complete
//! it, one module per way of running it:
//!
//! - `in_process`: the call made by the pump's inline effects, in process;
//! - `cli`: `flightstate request` and `flightstate requests` as an operator
//!   runs them;
//! - `run`: a request through `flightstate run`, its effect worker and pump;
//! - `crash`: the pump killed in the middle of a call and restarted
//!   (failpoints builds only).
#![cfg(feature = "postgres")]

#[path = "../common/mod.rs"]
mod common;
#[path = "../helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "../helpers/pumping/mod.rs"]
mod pumping;
#[path = "../helpers/requesting/mod.rs"]
mod requesting;
#[path = "../helpers/running/mod.rs"]
mod running;

mod cli;
mod crash;
mod in_process;
mod run;
