//! `flightstate catch-up [--dry-run]`: after the state database lost its
//! last commits (a failover to an asynchronous standby, a restore), applies
//! again from the mailbox the messages it lost, then puts the topics back
//! in step as `resync` does (docs/operations.md, "After a failover").
//! `run` and `pump` do the same by themselves when they meet a lost tail;
//! this command is for a restore before any of them starts, and for a
//! look (`--dry-run`: names the tail, changes nothing).
//!
//! Also the loop that `run` and `pump` wrap their pump in: pump until it
//! stops at a lost tail, catch the tail up, pump again.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use flightstate::config::Config;
use flightstate::lost_tail::{
    CatchUpError, CatchUpReport, CatchUpSettings, catch_up, detect, retry_after,
};
use flightstate::mailbox::Mailbox;
use flightstate::pump::{Pump, PumpError, RunSummary, sleep_unless_stopped};
use flightstate::store::Store;

use super::pump_parts::Parts;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Name the lost tail, if there is one; change nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::check_before_start(config.database_url()?, config)?;
    super::open_store::with_store(config, 2, CatchUp { config, opts })
}

struct CatchUp<'a> {
    config: &'a Config,
    opts: Opts,
}

impl super::open_store::StoreWork for CatchUp<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let parts = Parts::open(self.config, store, false)?;
        if self.opts.dry_run {
            let tail =
                detect(&parts.store, &parts.mailbox).context("cannot look for a lost tail")?;
            match tail {
                Some(tail) => println!("{}", tail.describe()),
                None => println!(
                    "no lost tail: the state database holds every message flightstate wrote back"
                ),
            }
            return Ok(ExitCode::SUCCESS);
        }
        let catching = Catching::new(self.config, &parts)?;
        // The command needs the brokers at once (a pump meets the need
        // only with a tail).
        self.config.kafka_client()?;
        let stop = AtomicBool::new(false);
        let report = catching
            .catch_up(&parts.store, &parts.mailbox, None, &stop)
            .context("catch-up stopped")?;
        print!("{}", text(&report));
        Ok(ExitCode::SUCCESS)
    }
}

/// What a catch-up needs besides the pump's parts. The brokers are needed
/// only when a tail is met: a `pump` whose configuration names none still
/// runs, and a tail it meets waits until they are configured.
pub(super) struct Catching {
    settings: CatchUpSettings,
    client: Result<flightstate::kafka::KafkaClient, String>,
}

impl Catching {
    pub(super) fn new<S>(config: &Config, parts: &Parts<S>) -> anyhow::Result<Catching> {
        Ok(Catching {
            settings: CatchUpSettings {
                pump: parts.pump.clone(),
                rules: parts.pipeline.clone(),
                resync: config.resync_settings(),
            },
            client: config.kafka_client().map_err(|e| e.to_string()),
        })
    }

    fn catch_up<S: Store + Clone>(
        &self,
        store: &S,
        mailbox: &Arc<Mailbox>,
        hint: Option<flightstate::lost_tail::LostTail>,
        stop: &AtomicBool,
    ) -> anyhow::Result<CatchUpReport> {
        let client = self.client.as_ref().map_err(|why| {
            anyhow::anyhow!(
                "the catch-up puts the topics back in step and needs the brokers: {why}"
            )
        })?;
        Ok(catch_up(
            store,
            mailbox,
            client,
            &self.settings,
            hint,
            stop,
        )?)
    }

    /// The resync alone, after a catch-up that applied the tail and failed
    /// to put the topics back in step.
    fn resync<S: Store>(&self, store: &S) -> anyhow::Result<flightstate::resync::ResyncReport> {
        let client = self
            .client
            .as_ref()
            .map_err(|why| anyhow::anyhow!("the resync needs the brokers: {why}"))?;
        Ok(flightstate::resync::resync(
            store,
            client,
            &self.settings.resync,
            false,
        )?)
    }

    /// Runs `pump` until `stop` (or idle, with `until_idle`), catching up
    /// every lost tail it stops at: the pump is the lease holder's, so the
    /// process that meets the tail catches it up, at night as by day, and
    /// nothing is pumped above the tail meanwhile. A catch-up that fails
    /// is tried again after a third of the lease; the pump stays stopped
    /// until one succeeds.
    pub(super) fn pump<S: Store + Clone>(
        &self,
        pump: &mut Pump<S>,
        (store, mailbox): (&S, &Arc<Mailbox>),
        stop: &AtomicBool,
        until_idle: bool,
    ) -> Result<RunSummary, PumpError> {
        let mut total = RunSummary::default();
        loop {
            let summary = pump.run(stop, until_idle)?;
            total.messages += summary.messages;
            let Some(tail) = summary.lost_tail else {
                return Ok(total);
            };
            // Once the tail is applied again, only the resync is left to
            // do when it failed: the tail is gone from every look.
            let mut resync_due = false;
            loop {
                if stop.load(Ordering::SeqCst) {
                    return Ok(total);
                }
                let outcome = if resync_due {
                    self.resync(store).map(|_| ())
                } else {
                    self.catch_up(store, mailbox, Some(tail), stop)
                        .map(|report| {
                            tracing::info!(
                                rows = report.rows,
                                applied = report.applied,
                                write_backs_found = report.write_backs_found,
                                "lost tail caught up; pumping again"
                            );
                        })
                };
                match outcome {
                    Ok(()) => break,
                    Err(e) => {
                        resync_due |= matches!(
                            e.downcast_ref::<CatchUpError>(),
                            Some(CatchUpError::Resync(_))
                        );
                        tracing::error!(
                            error = %format!("{e:#}"),
                            resync_due,
                            "the lost tail is not caught up; trying again"
                        );
                        sleep_unless_stopped(retry_after(&self.settings.pump), stop);
                    }
                }
            }
        }
    }
}

fn text(report: &CatchUpReport) -> String {
    let Some(tail) = report.tail else {
        return "no lost tail: nothing to catch up\n".to_owned();
    };
    let mut out = format!(
        "{}\napplied again: {} messages of {} rows read ({} write-backs found made) in {} ms\n",
        tail.describe(),
        report.applied,
        report.rows,
        report.write_backs_found,
        report.apply_millis
    );
    if let Some(resync) = &report.resync {
        out.push_str(&format!(
            "topics back in step: {} flights raised, {} states and {} tombstones queued\n",
            resync.flights_raised, resync.states_republished, resync.tombstones
        ));
    }
    out
}

/// The lost tail as `doctor` looks for it: `None` when there is none.
pub(super) fn look(config: &Config) -> anyhow::Result<Option<flightstate::lost_tail::LostTail>> {
    let mut found = None;
    super::open_store::with_store(
        config,
        1,
        Look {
            config,
            found: &mut found,
        },
    )?;
    Ok(found)
}

struct Look<'a> {
    config: &'a Config,
    found: &'a mut Option<flightstate::lost_tail::LostTail>,
}

impl super::open_store::StoreWork for Look<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let mailbox = Mailbox::connect(self.config.mailbox_settings()?)
            .context("cannot open the mailbox pool")?;
        *self.found = detect(&store, &mailbox).context("cannot look for a lost tail")?;
        Ok(ExitCode::SUCCESS)
    }
}
