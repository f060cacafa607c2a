//! The command line: one module per subcommand, each with `Opts` and
//! `run(opts, config)`. This is the only place that turns errors into exit
//! codes and prints them.

mod apply;
mod catch_up;
mod cleanup;
mod dead;
mod dispatch;
mod doctor;
mod enqueue;
mod generate;
mod held;
mod list_requests;
mod logging;
mod migrate;
mod open_store;
mod parse;
mod progress;
mod pump;
mod pump_parts;
mod register_request;
mod replay;
mod republish;
mod resync;
mod run;
mod serve;
mod sql;
mod status;
mod topics;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use flightstate::config::Config;
use flightstate::operator::Decision;

/// Keeps the current state of every flight at an airport from AODB SIS
/// messages.
#[derive(Debug, Parser)]
#[command(name = "flightstate", version, about)]
pub struct Cli {
    /// Configuration file; `FLIGHTSTATE_*` environment variables override it.
    #[arg(long, global = true, default_value = "flightstate.toml")]
    config: PathBuf,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Apply one message file to the state database, as the pump would.
    Apply(apply::Opts),
    /// Remove what the pipeline no longer needs: flights without an
    /// operation day, old days' ledgers, old processing records and calls.
    Cleanup(cleanup::Opts),
    /// List, show and requeue dead letters (DEAD messages).
    Dead(dead::Opts),
    /// Check the set-up before the first message: databases, mailbox,
    /// brokers, topics, clock, port; one line each, exit 1 on a failure.
    Doctor(doctor::Opts),
    /// Send the outbox to Kafka (the dispatcher alone).
    Dispatch(dispatch::Opts),
    /// Write a synthetic airport day as numbered SIS message files.
    Generate(generate::Opts),
    /// Queue message files in the inbound mailbox, as AODB would.
    Enqueue(enqueue::Opts),
    /// Apply the state-database migrations to `database.url`.
    Migrate(migrate::Opts),
    /// Print SIS message files as JSON, or the reason each is rejected.
    Parse(parse::Opts),
    /// Reject a snapshot held by the mass-delete guard: DEAD, the queue
    /// moves on; recorded with who and when.
    Reject(held::Opts),
    /// Release a snapshot held by the mass-delete guard: applied as it is;
    /// recorded with who and when.
    Release(held::Opts),
    /// Drain the mailbox into the state database (the main pump alone).
    Pump(pump::Opts),
    /// Apply snapshots already applied again, under an explicit day and
    /// version policy (`--dry-run` shows what would change).
    Replay(replay::Opts),
    /// Send the current state of chosen flights again (a day, FLIDs, an
    /// airline), at their current versions, beside the running pipeline.
    Republish(republish::Opts),
    /// Ask AODB for an operation day's flights (RQFD); prints the request id.
    Request(register_request::Opts),
    /// List the live and recent requests with their calls.
    Requests(list_requests::Opts),
    /// After a restore of the state database: go on above the versions the
    /// state topic holds, republish every flight, settle stale outbox rows
    /// (`--dry-run` prints the counts).
    Resync(resync::Opts),
    /// After the state database lost its last commits (failover, restore):
    /// apply again from the mailbox the messages it lost, then resync the
    /// topics (`--dry-run` names the lost tail).
    CatchUp(catch_up::Opts),
    /// Run the whole pipeline: pump, effect worker, dispatcher and read API
    /// threads.
    Run(run::Opts),
    /// Serve the read API and status page alone.
    Serve(serve::Opts),
    /// Print every SQL statement of a dialect, for DBA review.
    Sql(sql::Opts),
    /// Print the pipeline's status: backlog, lease, outbox, dead letters, days.
    Status(status::Opts),
    /// Read the state and change topics and count what they hold.
    Topics(topics::Opts),
}

/// Exit status of a run that worked but found something wrong with its input
/// (`EX_DATAERR` of sysexits.h: scripts can tell it from a crash).
pub const EXIT_DATA_ERROR: u8 = 65;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::load(&cli.config) {
        Ok(config) => config,
        Err(e) => return report(&anyhow::Error::new(e).context("cannot load the configuration")),
    };
    logging::init(&config.log);
    let outcome = match cli.command {
        Command::Migrate(opts) => migrate::run(opts, &config),
        Command::Parse(opts) => parse::run(opts, &config),
        Command::Pump(opts) => pump::run(opts, &config),
        Command::Run(opts) => run::run(opts, &config),
        Command::Serve(opts) => serve::run(opts, &config),
        Command::Status(opts) => status::run(opts, &config),
        Command::Apply(opts) => apply::run(opts, &config),
        Command::Enqueue(opts) => enqueue::run(opts, &config),
        Command::Generate(opts) => generate::run(opts, &config),
        Command::Sql(opts) => sql::run(opts, &config),
        Command::Dispatch(opts) => dispatch::run(opts, &config),
        Command::Doctor(opts) => doctor::run(opts, &config),
        Command::Topics(opts) => topics::run(opts, &config),
        Command::Request(opts) => register_request::run(opts, &config),
        Command::Requests(opts) => list_requests::run(opts, &config),
        Command::Dead(opts) => dead::run(opts, &config),
        Command::Cleanup(opts) => cleanup::run(opts, &config),
        Command::Replay(opts) => replay::run(opts, &config),
        Command::Resync(opts) => resync::run(opts, &config),
        Command::Republish(opts) => republish::run(opts, &config),
        Command::CatchUp(opts) => catch_up::run(opts, &config),
        Command::Release(opts) => held::run(opts, &config, Decision::Release),
        Command::Reject(opts) => held::run(opts, &config, Decision::Reject),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => report(&e),
    }
}

fn report(error: &anyhow::Error) -> ExitCode {
    eprintln!("flightstate: {error:#}");
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
