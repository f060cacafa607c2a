//! `flightstate request --day YYYY-MM-DD`: registers an RQFD request for an
//! operation day (docs/requests.md) and prints its id. The registration and
//! its record are `operator::request_day`, the same for the page. The
//! message is written into `COUTMSGS` by the effect worker (`run`, or
//! `pump`), never by this command.

use std::process::ExitCode;

use chrono::NaiveDate;
use flightstate::config::Config;
use flightstate::operator::{Actor, Via, operator_name, request_day};
use flightstate::request::RequestError;
use flightstate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// The operation day to ask AODB for.
    #[arg(long, value_name = "YYYY-MM-DD")]
    day: NaiveDate,
    /// Who asks (recorded); default: the operating-system user (`$USER`).
    #[arg(long)]
    by: Option<String>,
    /// Print JSON instead of the id alone.
    #[arg(long)]
    json: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::warn_of_host_zone(config);
    super::open_store::with_store(config, 1, Register { config, opts })
}

struct Register<'a> {
    config: &'a Config,
    opts: Opts,
}

impl super::open_store::StoreWork for Register<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let settings = self.config.requests.settings(self.config.day_boundary());
        let actor = Actor::new(&operator_name(self.opts.by)?, Via::CommandLine)?;
        let clock = self.config.station_clock();
        let registered = match request_day(&store, &settings, &clock, self.opts.day, &actor) {
            Ok(registered) => registered,
            Err(e @ RequestError::DigestMismatch { .. }) => {
                eprintln!("flightstate: {:#}", anyhow::Error::new(e));
                return Ok(ExitCode::from(1));
            }
            Err(e) => return Err(anyhow::Error::new(e)),
        };
        for old in &registered.expired {
            tracing::info!(request.id = old, "request {old} expired by the new one");
        }
        if self.opts.json {
            println!("{}", serde_json::to_string_pretty(&registered)?);
        } else {
            println!("{}", registered.req_id);
        }
        Ok(ExitCode::SUCCESS)
    }
}
