//! `flightstate request --day YYYY-MM-DD`: registers an RQFD request for an
//! operation day (docs/requests.md) and prints its id. The message is
//! written into `COUTMSGS` by the effect worker (`run`, or `pump`), never
//! by this command.

use std::process::ExitCode;

use chrono::NaiveDate;
use flightstate::config::Config;
use flightstate::request::{RequestError, register_day_request};
use flightstate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// The operation day to ask AODB for.
    #[arg(long, value_name = "YYYY-MM-DD")]
    day: NaiveDate,
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
        let now = flightstate::station::utc_now();
        let local_now = self.config.station_clock().local_at(now);
        let registered = store
            .transaction(|tx| register_day_request(tx, &settings, self.opts.day, now, local_now));
        let registered = match registered {
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
