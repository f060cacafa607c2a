//! `flightstate requests [--json]`: the live requests and the most recent
//! others, each with the call that writes its message (status, COUTMSGS
//! id, attempts). Overdue requests are marked TIMED_OUT first, so that the
//! list never shows as live a request whose time is up.

use std::process::ExitCode;

use flightstate::config::Config;
use flightstate::store::{RequestEntry, RequestOps, Store};

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::with_store(config, 1, List { config, opts })
}

struct List<'a> {
    config: &'a Config,
    opts: Opts,
}

impl super::open_store::StoreWork for List<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let now = flightstate::station::utc_now();
        let limit = i64::from(self.config.requests.list);
        let entries = store.transaction(|tx| {
            tx.time_out_requests(now)?;
            tx.select_requests(limit)
        });
        let entries: Vec<RequestEntry> = entries?;
        if self.opts.json {
            println!("{}", serde_json::to_string_pretty(&entries)?);
        } else {
            print!("{}", to_text(&entries));
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// One line per request.
fn to_text(entries: &[RequestEntry]) -> String {
    entries
        .iter()
        .map(|e| format!("{}\n", flightstate::request::summary(e)))
        .collect()
}
