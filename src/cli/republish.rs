//! `flightstate republish (--day D | --flid F… | --airline XX) [--dry-run]
//! [--batch N]`: queues the current state of the chosen flights in the state
//! outbox again, at their current versions, for a consumer that lost them
//! (docs/operations.md, "Sending flights again"; docs/kafka.md, "Sending
//! flights again on request"). Runs beside the pipeline, without its lease;
//! refused while `flightstate resync` runs. Prints what it queued; exit 1
//! when a FLID named is unknown or a resync holds the lease.

use std::process::ExitCode;

use anyhow::Context;
use chrono::NaiveDate;
use flightstate::config::Config;
use flightstate::republish::{
    DEFAULT_BATCH, RepublishError, RepublishReport, Selection, republish,
};
use flightstate::store::Store;

use super::progress::Progress;

#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("flights")
        .required(true)
        .args(["day", "flid", "airline"])
))]
pub struct Opts {
    /// Every stored flight of this operation day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    day: Option<NaiveDate>,
    /// This flight (repeat for more): its state if stored, its tombstone if
    /// deleted (at its version floor), reported unknown otherwise.
    #[arg(long, value_name = "FLID", value_parser = clap::value_parser!(i64).range(0..))]
    flid: Vec<i64>,
    /// Every stored flight of this airline (ALCD as AODB sends it, e.g. CA).
    #[arg(long, value_name = "XX", value_parser = airline)]
    airline: Option<String>,
    /// Count what would be queued; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Flights per transaction (each holds `PIPELINE_LOCK` for one batch).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BATCH,
          value_parser = clap::value_parser!(i64).range(1..=10_000))]
    batch: i64,
}

/// An airline code: not empty (Oracle would read an empty text as NULL).
fn airline(code: &str) -> Result<String, String> {
    let code = code.trim();
    if code.is_empty() {
        Err("an airline code (ALCD) is not empty".to_owned())
    } else {
        Ok(code.to_owned())
    }
}

impl Opts {
    fn selection(&self) -> Selection {
        match (self.day, &self.airline) {
            (Some(day), _) => Selection::Day(day),
            (None, Some(alcd)) => Selection::Airline(alcd.clone()),
            (None, None) => Selection::Flids(self.flid.clone()),
        }
    }
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::schema_level(config.database_url()?, config)
        .context("cannot read the state database's schema level")?
        .check()?;
    super::open_store::with_store(config, 1, Republish { opts })
}

struct Republish {
    opts: Opts,
}

impl super::open_store::StoreWork for Republish {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let selection = self.opts.selection();
        let (batch, dry_run) = (self.opts.batch, self.opts.dry_run);
        let outcome = if dry_run {
            republish(&store, &selection, batch, true, &mut |_| {})
        } else {
            queue_with_progress(&store, &selection, batch)
        };
        match outcome {
            Ok(report) => {
                print!("{}", text(&selection, &report));
                Ok(if report.unknown.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                })
            }
            Err(refused @ RepublishError::DuringResync { .. }) => {
                eprintln!("flightstate: republish refused: {refused}");
                Ok(ExitCode::from(1))
            }
            Err(e) => Err(anyhow::Error::new(e).context("republish stopped")),
        }
    }
}

/// The republish, its progress on stderr. The bar's length: the FLIDs
/// named, or the dry run's count of the day's or airline's flights (a flight
/// that joins them while the republish runs is queued too).
fn queue_with_progress<S: Store>(
    store: &S,
    selection: &Selection,
    batch: i64,
) -> Result<RepublishReport, RepublishError> {
    let total = match selection {
        Selection::Flids(flids) => flids
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        _ => {
            let counted = republish(store, selection, batch, true, &mut |_| {})?;
            counted.states + counted.tombstones + counted.unknown.len()
        }
    };
    let mut progress = Progress::new("queued", total as u64);
    republish(store, selection, batch, false, &mut |flights| {
        for _ in 0..flights {
            progress.inc();
        }
    })
}

/// The report for people: one line per count, each unknown FLID named.
fn text(selection: &Selection, report: &RepublishReport) -> String {
    let queue = if report.dry_run {
        "would queue"
    } else {
        "queued"
    };
    let flights = match selection {
        Selection::Day(day) => format!("flights of operation day {day}"),
        Selection::Airline(alcd) => format!("flights of airline {alcd}"),
        Selection::Flids(_) => "flights named".to_owned(),
    };
    let mut text = if report.dry_run {
        "dry run, nothing changed\n".to_owned()
    } else {
        String::new()
    };
    text.push_str(&format!(
        "{queue} {} states ({flights}, at their current versions)\n\
         {queue} {} tombstones (deleted flights named, at their version floors)\n",
        report.states, report.tombstones
    ));
    for flid in &report.unknown {
        text.push_str(&format!(
            "unknown FLID {flid}: neither stored nor deleted, nothing queued\n"
        ));
    }
    text.push_str(&format!("{} unknown FLIDs\n", report.unknown.len()));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_every_count_and_each_unknown_flid() {
        let report = RepublishReport {
            dry_run: false,
            states: 2,
            tombstones: 1,
            unknown: vec![7, 9],
        };
        assert_eq!(
            text(&Selection::Flids(vec![1, 2, 3, 7, 9]), &report),
            "queued 2 states (flights named, at their current versions)\n\
             queued 1 tombstones (deleted flights named, at their version floors)\n\
             unknown FLID 7: neither stored nor deleted, nothing queued\n\
             unknown FLID 9: neither stored nor deleted, nothing queued\n\
             2 unknown FLIDs\n"
        );
    }

    #[test]
    fn a_dry_run_says_it_changed_nothing() {
        let report = RepublishReport {
            dry_run: true,
            states: 40,
            ..RepublishReport::default()
        };
        let day = NaiveDate::from_ymd_opt(2025, 6, 1).expect("day");
        assert_eq!(
            text(&Selection::Day(day), &report),
            "dry run, nothing changed\n\
             would queue 40 states (flights of operation day 2025-06-01, at their current \
             versions)\n\
             would queue 0 tombstones (deleted flights named, at their version floors)\n\
             0 unknown FLIDs\n"
        );
    }

    #[test]
    fn one_way_to_choose_the_flights_is_required() {
        use clap::Parser;
        #[derive(Debug, clap::Parser)]
        struct Cli {
            #[command(flatten)]
            opts: Opts,
        }
        assert!(Cli::try_parse_from(["republish"]).is_err());
        assert!(
            Cli::try_parse_from(["republish", "--day", "2025-06-01", "--airline", "CA"]).is_err()
        );
        assert!(Cli::try_parse_from(["republish", "--airline", " "]).is_err());
        let cli = Cli::try_parse_from(["republish", "--flid", "3", "--flid", "1"]).expect("flids");
        assert_eq!(cli.opts.selection(), Selection::Flids(vec![3, 1]));
        assert_eq!(cli.opts.batch, DEFAULT_BATCH);
        let cli =
            Cli::try_parse_from(["republish", "--airline", "CA", "--batch", "7"]).expect("airline");
        assert_eq!(cli.opts.selection(), Selection::Airline("CA".to_owned()));
        assert_eq!(cli.opts.batch, 7);
    }
}
