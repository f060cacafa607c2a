//! The pump, from the MariaDB mailbox into the PostgreSQL state database,
//! one module per part of it:
//!
//! - `mailbox`: failure policy, blocking and release of the head, late lower
//!   ids, servers that become unreachable, two pumps on one database;
//! - `group`: group commit, the same end as committing message by message;
//! - `fence`: a pump whose lease is taken over in the middle of a message;
//! - `faults`: failures found by pushing a day through the pump on real
//!   servers, one test each;
//! - `crash`: `flightstate pump` killed at every failpoint of its side and
//!   restarted (failpoints builds only), with the check that every place of
//!   a failpoint in the sources has its crash case.
//!
//! All but `crash` run the pump in process.
#![cfg(feature = "postgres")]

#[path = "../common/mod.rs"]
mod common;
#[path = "../helpers/pumping/mod.rs"]
mod pumping;

mod crash;
mod faults;
mod fence;
mod group;
mod mailbox;
