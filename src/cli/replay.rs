//! `flightstate replay ID…`: applies snapshots already applied again, at an
//! operator's word and under an explicit policy (docs/operations.md,
//! "Replays"): the operation day they are applied as and what happens when
//! the day has a newer snapshot. Without both it refuses and changes
//! nothing; `--dry-run` reports what each replay would create, update and
//! delete, from the replay's own transaction rolled back.
//!
//! Each message is replayed in a transaction of its own, in the order
//! given; the first refusal stops the run (the messages before it stay
//! replayed), since a later replay of the same day may have counted on it.

use std::process::ExitCode;

use anyhow::Context;
use chrono::NaiveDate;
use flightstate::config::Config;
use flightstate::mailbox::Mailbox;
use flightstate::pipeline::{
    ReplayError, ReplayPlan, ReplayPolicy, Rules, VersionPolicy, replay_snapshot,
};
use flightstate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// The message ids (`CMINMSGS_ID`) of snapshots already applied,
    /// replayed in this order.
    #[arg(required = true)]
    ids: Vec<i64>,
    /// The operation day the snapshots are applied as (`YYYY-MM-DD`); it
    /// must be each message's own day unless `--other-day` is given.
    #[arg(long)]
    day: Option<NaiveDate>,
    /// When the day has a newer snapshot than the message: `latest` refuses
    /// (the message is replayed only while it is the day's latest snapshot
    /// or newer), `force` applies it over the newer one.
    #[arg(long, value_enum)]
    version: Option<VersionArg>,
    /// Apply the snapshots as `--day` although they are of another day:
    /// their flights then belong to `--day`.
    #[arg(long)]
    other_day: bool,
    /// Move flights of the snapshots that now belong to another operation
    /// day to `--day`, whatever the site's rule for day moves.
    #[arg(long)]
    move_flights: bool,
    /// Report what each replay would create, update and delete, then roll
    /// it back: nothing changes.
    #[arg(long)]
    dry_run: bool,
    /// Who replays (recorded); default: the operating-system user (`$USER`).
    #[arg(long)]
    by: Option<String>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum VersionArg {
    /// Only while no newer snapshot of the day was applied.
    Latest,
    /// Over a newer snapshot of the day as well.
    Force,
}

/// Why a replay without its policy is refused, and what to give.
const NO_POLICY: &str = "a replay needs an explicit policy, else an older snapshot could \
overwrite newer state; nothing was changed: give `--day YYYY-MM-DD` (the operation day it is \
applied as) and `--version latest|force` (latest: only if no newer snapshot of the day was \
applied since; force: over a newer one as well); `--dry-run` shows what it would do";

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let (Some(day), Some(version)) = (opts.day, opts.version) else {
        anyhow::bail!(NO_POLICY);
    };
    let policy = ReplayPolicy {
        day,
        other_day: opts.other_day,
        version: match version {
            VersionArg::Latest => VersionPolicy::Latest,
            VersionArg::Force => VersionPolicy::Force,
        },
        move_flights: opts.move_flights,
        dry_run: opts.dry_run,
        by: flightstate::operator::operator_name(opts.by)?,
    };
    super::open_store::with_store(
        config,
        1,
        Replay {
            config,
            ids: opts.ids,
            policy,
        },
    )
}

struct Replay<'a> {
    config: &'a Config,
    ids: Vec<i64>,
    policy: ReplayPolicy,
}

impl super::open_store::StoreWork for Replay<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let mailbox = super::dead::mailbox(self.config)?;
        let rules = self.config.pipeline_rules();
        let what = if self.policy.dry_run {
            "checked"
        } else {
            "replayed"
        };
        let mut progress = super::progress::Progress::new(what, self.ids.len() as u64);
        for &id in &self.ids {
            match replay_one(&store, &mailbox, &rules, id, &self.policy)? {
                Ok(plan) => print!("{}", plan_text(&plan, &self.policy)),
                Err(reason) => {
                    eprintln!("flightstate: replay refused, nothing changed: {reason}");
                    return Ok(ExitCode::from(1));
                }
            }
            progress.inc();
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Replays message `id`: its plan, or why it was refused (`Ok(Err(…))`).
fn replay_one<S: Store + Clone>(
    store: &S,
    mailbox: &Mailbox,
    rules: &Rules,
    id: i64,
    policy: &ReplayPolicy,
) -> anyhow::Result<Result<ReplayPlan, String>> {
    let Some(body) = mailbox
        .message_body(id)
        .with_context(|| format!("message {id}: cannot read its mailbox row"))?
    else {
        return Ok(Err(format!(
            "message {id}: its mailbox row is gone; a replay applies a message from the mailbox"
        )));
    };
    let now = flightstate::station::utc_now();
    let plan = match replay_snapshot(store, rules, id, &body, policy, now) {
        Ok(plan) => plan,
        Err(ReplayError::Refused(reason)) => return Ok(Err(reason)),
        Err(ReplayError::Failed(e)) => {
            return Err(anyhow::Error::new(e)
                .context(format!("message {id}: the replay failed; nothing changed")));
        }
    };
    tracing::info!(
        msg.id = id,
        operation_day = %policy.day,
        policy = policy.describe(),
        replayed_by = policy.by,
        dry_run = policy.dry_run,
        "snapshot replayed"
    );
    Ok(Ok(plan))
}

/// What a replay did (or, dry run, would do), for the operator.
fn plan_text(plan: &ReplayPlan, policy: &ReplayPolicy) -> String {
    let version = |v: Option<i64>| v.map_or_else(|| "none".to_owned(), |v| v.to_string());
    let latest = plan.latest_before.map_or_else(String::new, |m| {
        format!(", the day's latest snapshot was message {m}")
    });
    let mut text = if plan.dry_run {
        format!(
            "message {} ({}): a replay as {} would take the day's version {} to {}{latest}; dry run, nothing changed\n",
            plan.message_id,
            plan.message,
            policy.day,
            version(plan.version_before),
            version(plan.version_after),
        )
    } else {
        format!(
            "message {} ({}) replayed as {} by {} ({}): the day's version {} to {}{latest}\n",
            plan.message_id,
            plan.message,
            policy.day,
            policy.by,
            policy.describe(),
            version(plan.version_before),
            version(plan.version_after),
        )
    };
    for (what, flids) in [
        ("created", &plan.created),
        ("updated", &plan.updated),
        ("unchanged", &plan.unchanged),
        ("deleted", &plan.deleted),
    ] {
        text.push_str(&format!("  {what} {}:", flids.len()));
        for flid in flids {
            text.push_str(&format!(" {flid}"));
        }
        text.push('\n');
    }
    text
}
