//! `flightstate cleanup [--dry-run]`: the lifecycle clean-up run once
//! (docs/operations.md, "Clean-up"): flights without an operation day past
//! their retention (with tombstones), ledgers of old days without flights,
//! settled journaled calls and old processing records. `--dry-run` prints
//! what it would remove and changes nothing.

use std::process::ExitCode;

use flightstate::cleanup::{CleanupReport, clean_up};
use flightstate::config::Config;
use flightstate::store::Store;

use super::progress::Progress;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Print what would be removed; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::with_store(config, 1, Clean { config, opts })
}

struct Clean<'a> {
    config: &'a Config,
    opts: Opts,
}

impl super::open_store::StoreWork for Clean<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let settings = self.config.cleanup_settings();
        let now = flightstate::station::utc_now();
        let report = if self.opts.dry_run {
            clean_up(&store, &settings, now, true, &mut |_, _| true)?
        } else {
            // The dry run's count is the bar's length: rows that become
            // due while the clean-up runs are removed too.
            let due = clean_up(&store, &settings, now, true, &mut |_, _| true)?.total();
            let mut progress = Progress::new("removed", due as u64);
            clean_up(&store, &settings, now, false, &mut |_, rows| {
                for _ in 0..rows {
                    progress.inc();
                }
                true
            })?
        };
        if self.opts.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", text(&report));
        }
        tracing::info!(
            dry_run = report.dry_run,
            flights = report.flights.len(),
            retired_days = report.retired_days.len(),
            retired_flights = report.retired_flights.len(),
            days = report.days.len(),
            effect_calls = report.effect_calls,
            proc_states = report.proc_states,
            actions = report.actions,
            "clean-up done"
        );
        Ok(ExitCode::SUCCESS)
    }
}

/// The report for people: one line per part, the flights and days named.
fn text(report: &CleanupReport) -> String {
    let verb = if report.dry_run {
        "would remove"
    } else {
        "removed"
    };
    let list = |items: Vec<String>| {
        if items.is_empty() {
            String::new()
        } else {
            format!(": {}", items.join(", "))
        }
    };
    let retire = if report.dry_run {
        "would retire"
    } else {
        "retired"
    };
    format!(
        "{verb} {} flights without operation day{}\n\
         {retire} {} operation days{} ({} flights)\n\
         {verb} the snapshot ledgers of {} days{}\n\
         {verb} {} settled journaled calls\n\
         {verb} {} processing records\n\
         {verb} {} recorded operator actions\n",
        report.flights.len(),
        list(report.flights.iter().map(ToString::to_string).collect()),
        report.retired_days.len(),
        list(
            report
                .retired_days
                .iter()
                .map(ToString::to_string)
                .collect()
        ),
        report.retired_flights.len(),
        report.days.len(),
        list(report.days.iter().map(ToString::to_string).collect()),
        report.effect_calls,
        report.proc_states,
        report.actions,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_says_what_it_would_remove() {
        let report = CleanupReport {
            dry_run: true,
            flights: vec![7, 9],
            retired_days: vec![chrono::NaiveDate::from_ymd_opt(2026, 9, 1).expect("day")],
            retired_flights: vec![11, 12, 13],
            days: Vec::new(),
            effect_calls: 3,
            proc_states: 0,
            actions: 4,
        };
        assert_eq!(
            text(&report),
            "would remove 2 flights without operation day: 7, 9\n\
             would retire 1 operation days: 2026-09-01 (3 flights)\n\
             would remove the snapshot ledgers of 0 days\n\
             would remove 3 settled journaled calls\n\
             would remove 0 processing records\n\
             would remove 4 recorded operator actions\n"
        );
    }
}
