//! The pipeline's facts at one moment — mailbox backlog, lease, processing
//! outcomes, dead letters, outbox, snapshot days — gathered once and shown
//! three ways: the status page, the metrics and `flightstate status`. The
//! state database's facts come from one read-only snapshot, so they agree
//! with each other; the mailbox is read on its own.

use std::fmt::Write as _;

use chrono::{NaiveDateTime, Timelike, Utc};
use serde::Serialize;

use super::evidence::{self, HeadBlocked, SENDERS_LISTED};
use crate::lost_tail::{LostTail, detect};
use crate::mailbox::{Backlog, Mailbox};
use crate::store::{
    ActionOps, ActionRecord, DayOrder, EvidenceOps, HeldDays, OutboxBacklog, PipelineLease,
    ProcCount, ProcEntry, ProcStatus, ReadOps, RequestEntry, RequestOps, SenderSeqn, SnapshotDay,
    Store, StoreError,
};

/// Requests the status lists: the live ones first, then the latest.
const REQUESTS_LISTED: i64 = 10;

/// Operator actions the status lists, the latest.
pub const ACTIONS_LISTED: i64 = 20;

/// How much the status lists.
#[derive(Clone, Copy, Debug)]
pub struct StatusLimits {
    /// DEAD messages listed (the latest).
    pub dead_letters: u32,
    /// Operation days listed (the latest).
    pub days: u32,
    /// After how long a head blocked by an infrastructure failure is an
    /// alert (`pump.head_blocked_alert_secs`).
    pub head_blocked_alert_secs: u64,
}

/// Everything the status shows.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    /// When the facts were read (UTC).
    pub taken_at: NaiveDateTime,
    /// The inbound queue; `None` when it could not be read.
    pub mailbox: Option<Backlog>,
    /// Why the mailbox could not be read (or that none is configured).
    pub mailbox_error: Option<String>,
    /// Whether the process has a mailbox to read.
    pub mailbox_configured: bool,
    /// The state database's facts; `None` when it could not be read.
    pub state: Option<StateFacts>,
    /// Why the state database could not be read.
    pub state_error: Option<String>,
    /// The mailbox rows flightstate wrote back that the state database
    /// lost (docs/operations.md, "After a failover"); `None` when there are
    /// none or either side could not be read.
    pub lost_tail: Option<LostTail>,
}

/// The state database's part of the status, from one snapshot.
#[derive(Clone, Debug, Serialize)]
pub struct StateFacts {
    /// The pump lease.
    pub lease: Lease,
    /// Messages by status, error kind and message kind.
    pub messages: Vec<ProcCount>,
    /// The latest DEAD messages, newest first.
    pub dead: Vec<ProcEntry>,
    /// The snapshots the mass-delete guard holds, newest first: the head of
    /// the queue waits for an operator's `flightstate release` or
    /// `flightstate reject`.
    pub held: Vec<ProcEntry>,
    /// The outbox rows still to send.
    pub outbox: OutboxBacklog,
    /// The latest operation days with a snapshot, newest first.
    pub days: Vec<SnapshotDay>,
    /// Which operation days the state holds.
    pub held_days: HeldDays,
    /// Outbound requests, live ones first, with their calls.
    pub requests: Vec<RequestEntry>,
    /// The head of the queue, when an infrastructure failure blocks it.
    pub blocked_head: Option<HeadBlocked>,
    /// Evidence of the upstream's order (rule M) of the latest days,
    /// newest first.
    pub order: Vec<DayOrder>,
    /// Evidence of each inbound sender's SEQN, by sender.
    pub senders: Vec<SenderSeqn>,
    /// The latest operator actions (`OPERATOR_ACTION`), newest first.
    pub actions: Vec<ActionRecord>,
}

/// The pump lease as people read it.
#[derive(Clone, Debug, Serialize)]
pub struct Lease {
    /// Who holds (or last held) it.
    pub holder: Option<String>,
    /// The fencing epoch.
    pub epoch: i64,
    /// When it runs out (UTC).
    pub expires_at: Option<NaiveDateTime>,
    /// Seconds until it runs out (negative: ran out that long ago).
    pub expires_in_secs: Option<i64>,
    /// Whether a pump holds it now.
    pub held: bool,
}

impl Lease {
    fn of(lease: PipelineLease, now: NaiveDateTime) -> Lease {
        let expires_in_secs = lease.expires_at.map(|t| (t - now).num_seconds());
        Lease {
            held: lease.held_at(now),
            holder: lease.holder,
            epoch: lease.epoch,
            expires_at: lease.expires_at,
            expires_in_secs,
        }
    }
}

impl StateFacts {
    /// Messages of `status` (any kind).
    pub fn count_of(&self, status: ProcStatus) -> i64 {
        self.messages
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.messages)
            .sum()
    }

    /// Messages whose latest failure is of kind `error_kind` (FAILED or
    /// DEAD).
    pub fn count_of_kind(&self, error_kind: &str) -> i64 {
        self.messages
            .iter()
            .filter(|c| c.status != ProcStatus::Succeeded)
            .filter(|c| c.error_kind.as_deref() == Some(error_kind))
            .map(|c| c.messages)
            .sum()
    }
}

/// Now, UTC, to the second (as the database keeps times).
pub fn now() -> NaiveDateTime {
    let now = Utc::now().naive_utc();
    now.with_nanosecond(0).unwrap_or(now)
}

/// Age in seconds of `since` at `now` (never negative).
pub fn age_secs(since: Option<NaiveDateTime>, now: NaiveDateTime) -> Option<i64> {
    since.map(|t| (now - t).num_seconds().max(0))
}

/// Reads the state database's facts in one read-only snapshot.
///
/// # Errors
///
/// A [`StoreError`] of the read.
pub fn state_facts<S: Store>(
    store: &S,
    limits: StatusLimits,
    now: NaiveDateTime,
) -> Result<StateFacts, StoreError> {
    store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        Ok(StateFacts {
            lease: Lease::of(tx.pipeline_lease()?, now),
            messages: tx.proc_counts()?,
            dead: tx.latest_by_status(ProcStatus::Dead, i64::from(limits.dead_letters))?,
            held: tx.latest_by_status(ProcStatus::Held, i64::from(limits.dead_letters))?,
            outbox: tx.outbox_backlog()?,
            days: tx.snapshot_days(i64::from(limits.days))?,
            held_days: tx.select_held_days()?,
            requests: tx.select_requests(REQUESTS_LISTED)?,
            blocked_head: tx
                .select_blocked_head()?
                .map(|head| HeadBlocked::of(head, now, limits.head_blocked_alert_secs)),
            order: tx.select_latest_order_evidence(i64::from(limits.days))?,
            senders: tx.select_seqn_senders(SENDERS_LISTED)?,
            actions: tx.select_operator_actions(ACTIONS_LISTED)?,
        })
    })
}

/// Gathers the status: the state database's facts and the mailbox's
/// backlog (`mailbox` is `None` where none is configured). A part that
/// cannot be read is reported, not fatal.
pub fn collect<S: Store>(store: &S, mailbox: Option<&Mailbox>, limits: StatusLimits) -> Status {
    let taken_at = now();
    let (mut state, state_error) = match state_facts(store, limits, taken_at) {
        Ok(facts) => (Some(facts), None),
        Err(e) => (None, Some(format!("{e:#}"))),
    };
    let configured = mailbox.is_some();
    let lost_tail = match mailbox.map(|m| detect(store, m)) {
        Some(Ok(tail)) => tail,
        Some(Err(e)) => {
            tracing::debug!(error = %crate::failure::Causes(&e), "cannot look for a lost tail");
            None
        }
        None => None,
    };
    let (mailbox, mailbox_error) = match mailbox.map(Mailbox::backlog) {
        Some(Ok(backlog)) => (Some(backlog), None),
        Some(Err(e)) => (None, Some(format!("{e:#}"))),
        None => (None, Some("not configured (`mailbox.url`)".to_owned())),
    };
    if let (Some(facts), Some(backlog)) = (&mut state, &mailbox) {
        // A FAILED message the mailbox no longer holds pending (its row was
        // settled or removed by hand) blocks nothing.
        let passed =
            |head: &HeadBlocked| backlog.head_id.is_none_or(|h| h > head.message.message_id);
        if facts.blocked_head.as_ref().is_some_and(passed) {
            facts.blocked_head = None;
        }
    }
    Status {
        taken_at,
        mailbox,
        mailbox_error,
        mailbox_configured: configured,
        state,
        state_error,
        lost_tail,
    }
}

fn or_dash<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

impl Status {
    /// The status as plain text for a terminal (`flightstate status`).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "status at {} UTC", self.taken_at);
        match (&self.mailbox, &self.mailbox_error) {
            (Some(b), _) => {
                let _ = writeln!(
                    out,
                    "mailbox: {} pending, head {}, oldest waiting {} s",
                    b.pending,
                    or_dash(b.head_id),
                    or_dash(b.oldest_age_secs)
                );
            }
            (None, error) => {
                let _ = writeln!(out, "mailbox: unavailable: {}", or_dash(error.as_deref()));
            }
        }
        if let Some(tail) = &self.lost_tail {
            let _ = writeln!(
                out,
                "LOST TAIL: {}; the pump catches it up when it holds the lease, or run \
                 `flightstate catch-up`",
                tail.describe()
            );
        }
        let Some(state) = &self.state else {
            let _ = writeln!(
                out,
                "state database: unavailable: {}",
                or_dash(self.state_error.as_deref())
            );
            return out;
        };
        let lease = &state.lease;
        let _ = writeln!(
            out,
            "lease: {} holder {}, epoch {}, expires {} ({} s)",
            if lease.held { "held," } else { "not held," },
            or_dash(lease.holder.as_deref()),
            lease.epoch,
            or_dash(lease.expires_at.map(|t| t.format("%Y-%m-%d %H:%M:%S"))),
            or_dash(lease.expires_in_secs)
        );
        let _ = writeln!(
            out,
            "messages: {} succeeded, {} failed, {} dead, {} unsupported, {} held",
            state.count_of(ProcStatus::Succeeded),
            state.count_of(ProcStatus::Failed),
            state.count_of(ProcStatus::Dead),
            state.count_of_kind("UNSUPPORTED"),
            state.count_of(ProcStatus::Held)
        );
        for held in &state.held {
            let _ = writeln!(
                out,
                "HELD {}  {} {}  {}: {}; the queue waits: `flightstate release {}` or `flightstate reject {}`",
                held.message_id,
                or_dash(held.msg_type.as_deref()),
                or_dash(held.msg_subtype.as_deref()),
                or_dash(held.error_kind.as_deref()),
                or_dash(held.error_text.as_deref()),
                held.message_id,
                held.message_id
            );
        }
        let o = &state.outbox;
        let _ = writeln!(
            out,
            "outbox: {} state events (oldest {} s), {} change notices (oldest {} s)",
            o.state_events,
            or_dash(age_secs(o.state_oldest, self.taken_at)),
            o.change_notices,
            or_dash(age_secs(o.change_oldest, self.taken_at))
        );
        evidence::write_text(
            &mut out,
            state.blocked_head.as_ref(),
            &state.order,
            &state.senders,
        );
        let _ = writeln!(
            out,
            "operation days held: {}  ({} flights without an operation day)",
            state.held_days, state.held_days.without_day
        );
        let _ = writeln!(out, "days:");
        for day in &state.days {
            let _ = writeln!(
                out,
                "  {}  snapshot version {}  {} flights ({} listed)  message {}",
                day.operation_day, day.version, day.flights, day.listed, day.last_message_id
            );
        }
        let _ = writeln!(out, "requests:");
        for request in &state.requests {
            let _ = writeln!(out, "  {}", crate::request::summary(request));
        }
        let _ = writeln!(out, "latest dead messages:");
        for dead in &state.dead {
            let _ = writeln!(
                out,
                "  {}  {} {}  {}: {}",
                dead.message_id,
                or_dash(dead.msg_type.as_deref()),
                or_dash(dead.msg_subtype.as_deref()),
                or_dash(dead.error_kind.as_deref()),
                or_dash(dead.error_text.as_deref())
            );
        }
        out
    }
}
