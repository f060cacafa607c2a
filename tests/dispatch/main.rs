//! The Kafka dispatcher, one module per part of it, against real PostgreSQL
//! and a Kafka-protocol broker:
//!
//! - `tansu`: messages applied, dispatched and consumed back from tansu; a
//!   consumer rebuilds every flight from the state topic alone;
//! - `lanes`: the outbox split by flight between lanes that run side by side;
//! - `several`: several dispatchers (or `run` processes) on one outbox;
//! - `faults`: broker faults injected with rdkafka's `MockCluster`;
//! - `outage`: a broker outage longer than the delivery timeout, with
//!   `flightstate dispatch` as a child process;
//! - `heartbeat`: the heartbeat record, its watermark and its interval;
//! - `transactions`: what the test broker does with Kafka transactions;
//! - `crash`: `flightstate dispatch` killed between producing a batch and
//!   marking it sent (failpoints builds only).
#![cfg(feature = "postgres")]

#[path = "../common/mod.rs"]
mod common;
#[path = "../helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "../helpers/pumping/mod.rs"]
mod pumping;

mod crash;
mod faults;
mod heartbeat;
mod lanes;
mod outage;
mod several;
mod tansu;
mod transactions;
