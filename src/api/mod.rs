//! The read API and status page (DESIGN §9): whole flight states over HTTP,
//! health, metrics and one status page, served by blocking threads.
//!
//! Read-only unless `api.actions` is on: every read runs in a read-only
//! transaction (the database refuses a write), only `GET` is answered, and
//! every value taken from a request is bound, never spliced into SQL. With
//! actions on, an operator's `POST`s under `/operator` run the command
//! line's own code ([`crate::operator`]). Owns no SQL of its own: it reads
//! through [`crate::store::ReadOps`] and the mailbox.

mod actions;
mod charts;
mod chrome;
mod credential;
mod dashboard;
mod dead_page;
mod evidence;
mod flight_page;
mod flights;
mod forms;
mod health;
mod history;
mod html;
mod metrics;
mod page;
mod record_page;
mod reply;
mod routes;
mod search;
mod server;
mod status;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveTime;

use crate::kafka::KafkaClient;
use crate::request::RequestSettings;
use crate::station::StationClock;

pub use credential::{Credential, Operators, loopback};
pub use dashboard::REFRESH_SECS;
pub use evidence::HeadBlocked;
pub use health::{Check, Health};
pub use history::{CAPACITY as HISTORY_CAPACITY, History};
pub use html::escape;
pub use metrics::Topics;
pub use routes::token_matches;
pub use server::{Running, start};
pub use status::{Lease, StateFacts, Status, StatusLimits, collect, state_facts};

use crate::mailbox::Mailbox;

/// How the API answers.
#[derive(Clone)]
pub struct ApiSettings {
    /// The bearer token requests must carry, if any.
    pub token: Option<String>,
    /// Flights per page of a full read.
    pub page_size: usize,
    /// How long `/healthz` waits for each server.
    pub check_timeout: Duration,
    /// How much the status lists.
    pub limits: StatusLimits,
    /// The topics, for the metrics' labels.
    pub topics: Topics,
    /// The Kafka brokers `/healthz` asks, if the process uses Kafka.
    pub kafka: Option<KafkaClient>,
    /// The station's clock: the search's "today".
    pub station: StationClock,
    /// Where one operation day ends (`station.day_boundary`).
    pub day_boundary: NaiveTime,
    /// Operators' actions under `/operator`, when `api.actions` is on.
    pub actions: Option<ActionSettings>,
    /// The certificate and key the API serves TLS with, if any.
    pub tls: Option<TlsFiles>,
}

/// What the page's actions need (docs/api.md, "Actions").
#[derive(Clone, Debug)]
pub struct ActionSettings {
    /// Who may act.
    pub operators: Operators,
    /// How a day is requested from AODB, as `flightstate request` does.
    pub requests: RequestSettings,
}

/// The PEM files of the API's TLS.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The certificate (chain).
    pub certificate: PathBuf,
    /// Its private key.
    pub private_key: PathBuf,
}

impl std::fmt::Debug for ApiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiSettings")
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("page_size", &self.page_size)
            .field("actions", &self.actions)
            .field("tls", &self.tls)
            .finish_non_exhaustive()
    }
}

/// What the API reads from.
pub struct Api<S> {
    /// The state database (read-only transactions only).
    pub store: S,
    /// The mailbox, if configured.
    pub mailbox: Option<Arc<Mailbox>>,
    /// How it answers.
    pub settings: ApiSettings,
}
