//! `flightstate status [--json]`: the facts of the status page — backlog,
//! lease, outbox, dead letters, days — printed once, from the same code.
//! Exit 0 when every part could be read, 1 when one could not.

use std::process::ExitCode;

use flightstate::api;
use flightstate::config::Config;
use flightstate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::with_store_at(
        config.api_database_url()?,
        config,
        1,
        Print { config, opts },
    )
}

struct Print<'a> {
    config: &'a Config,
    opts: Opts,
}

impl super::open_store::StoreWork for Print<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let mailbox = super::serve::optional_mailbox(self.config)?;
        let status = api::collect(&store, mailbox.as_deref(), self.config.status_limits());
        if self.opts.json {
            println!("{}", serde_json::to_string_pretty(&status)?);
        } else {
            print!("{}", status.to_text());
        }
        let whole = status.state.is_some() && (status.mailbox.is_some() || mailbox.is_none());
        Ok(if whole {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }
}
