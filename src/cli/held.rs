//! `flightstate release MESSAGE_ID` and `flightstate reject MESSAGE_ID`: an
//! operator's answer to a snapshot the mass-delete guard holds
//! (docs/operations.md). The answer and its record are
//! `operator::decide_held`, the same for the page; this command parses,
//! names the operator and prints.

use std::process::ExitCode;

use flightstate::config::Config;
use flightstate::operator::{Actor, Decision, Via, decide_held, operator_name};
use flightstate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// The held message's id (`CMINMSGS_ID`).
    id: i64,
    /// Who decides (recorded); default: the operating-system user (`$USER`).
    #[arg(long)]
    by: Option<String>,
}

pub fn run(opts: Opts, config: &Config, decision: Decision) -> anyhow::Result<ExitCode> {
    super::open_store::with_store(config, 1, Decide { opts, decision })
}

struct Decide {
    opts: Opts,
    decision: Decision,
}

impl super::open_store::StoreWork for Decide {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let Decide { opts, decision } = self;
        let actor = Actor::new(&operator_name(opts.by)?, Via::CommandLine)?;
        let decided = decide_held(&store, opts.id, decision, &actor)?;
        println!("{decided}");
        Ok(if decided.ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }
}
