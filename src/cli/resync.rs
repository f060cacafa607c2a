//! `flightstate resync [--dry-run]`: after a restore of the state database
//! (or the loss of the state topic), brings the topic and the database back
//! into agreement (docs/operations.md, "After a restore"): every stored
//! flight goes on above the version the topic holds of it and is queued to
//! be sent again, FLIDs the topic holds and the database does not get a
//! version floor and, where consumers hold them as a state, a tombstone;
//! the state events pending from before the restore are settled unsent.
//! `--dry-run` prints the counts and changes nothing.

use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::resync::{ResyncReport, resync};
use flightstate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Print what resync would do (flights raised, states to republish,
    /// tombstones, stale outbox rows); change nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::check_before_start(config.database_url()?, config)?;
    super::open_store::with_store(config, 2, Resync { config, opts })
}

struct Resync<'a> {
    config: &'a Config,
    opts: Opts,
}

impl super::open_store::StoreWork for Resync<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let settings = self.config.resync_settings();
        let client = self.config.kafka_client()?;
        let report =
            resync(&store, &client, &settings, self.opts.dry_run).context("resync stopped")?;
        print!("{}", text(&settings.state_topic, &report));
        Ok(ExitCode::SUCCESS)
    }
}

/// The report for people: what the topic holds, then one line per count.
fn text(topic: &str, report: &ResyncReport) -> String {
    let (raise, republish, send, record, settle, number) = if report.dry_run {
        (
            "would raise",
            "would queue",
            "would queue",
            "would record",
            "would settle",
            "would number",
        )
    } else {
        (
            "raised", "queued", "queued", "recorded", "settled", "numbered",
        )
    };
    let id = |id: Option<i64>| id.map_or_else(|| "none".to_owned(), |id| id.to_string());
    let unreadable = if report.topic_unreadable > 0 {
        format!(", {} unreadable records skipped", report.topic_unreadable)
    } else {
        String::new()
    };
    format!(
        "{dry}state topic `{topic}`: {} records of {} flights ({} states, {} tombstones){unreadable}\n\
         state database: {} flights\n\
         {raise} {} flights above the topic's versions\n\
         {republish} {} states to republish\n\
         {send} {} tombstones of flights the database does not hold\n\
         {record} {} version floors\n\
         {settle} {} stale outbox rows (state events pending from before the restore)\n\
         {number} new outbox rows above the topics' highest event ids (state topic {}, change \
         topic {})\n",
        report.topic_records,
        report.topic_flights,
        report.topic_live,
        report.topic_flights - report.topic_live,
        report.stored_flights,
        report.flights_raised,
        report.states_republished,
        report.tombstones,
        report.version_floors,
        report.stale_state_events,
        id(report.state_topic_event_id),
        id(report.change_topic_event_id),
        dry = if report.dry_run {
            "dry run, nothing changed\n"
        } else {
            ""
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_prints_the_counts_it_would_change() {
        let report = ResyncReport {
            dry_run: true,
            topic_records: 40,
            topic_flights: 12,
            topic_live: 10,
            stored_flights: 9,
            flights_raised: 3,
            states_republished: 9,
            tombstones: 2,
            version_floors: 3,
            stale_state_events: 5,
            state_topic_event_id: Some(80),
            change_topic_event_id: None,
            ..ResyncReport::default()
        };
        assert_eq!(
            text("flight.state", &report),
            "dry run, nothing changed\n\
             state topic `flight.state`: 40 records of 12 flights (10 states, 2 tombstones)\n\
             state database: 9 flights\n\
             would raise 3 flights above the topic's versions\n\
             would queue 9 states to republish\n\
             would queue 2 tombstones of flights the database does not hold\n\
             would record 3 version floors\n\
             would settle 5 stale outbox rows (state events pending from before the restore)\n\
             would number new outbox rows above the topics' highest event ids (state topic 80, \
             change topic none)\n"
        );
    }
}
