//! `GET /metrics`: the status in Prometheus' text exposition format
//! (version 0.0.4). The status is read from the databases at scrape time,
//! so a scrape of any process — `serve` or `run`, a replica or the primary
//! — tells the same story. Three things belong to the process scraped: the
//! connections of its pools, which r2d2 counts, the apply latency of its
//! pump, and the freshness of what its dispatcher published.

use std::fmt::Write as _;

use chrono::NaiveDateTime;

use super::status::{Lease, StateFacts, Status, age_secs};
use crate::histogram::Reading;
use crate::mailbox::Backlog;
use crate::store::{OutboxBacklog, PoolCount, ProcStatus};

/// The topics' names, for the outbox series' `topic` label.
#[derive(Clone, Debug)]
pub struct Topics {
    /// The state topic (`KAFKA_SCHD`).
    pub state: String,
    /// The change topic (`KAFKA_MSG`).
    pub change: String,
}

/// A label value as the format wants it: backslash, double quote and line
/// feed escaped.
pub fn label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

struct Exposition(String);

impl Exposition {
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.0, "# HELP {name} {help}");
        let _ = writeln!(self.0, "# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.0.push_str(name);
        if !labels.is_empty() {
            self.0.push('{');
            for (i, (key, val)) in labels.iter().enumerate() {
                if i > 0 {
                    self.0.push(',');
                }
                let _ = write!(self.0, "{key}=\"{}\"", label(val));
            }
            self.0.push('}');
        }
        let _ = writeln!(self.0, " {value}");
    }

    fn gauge(&mut self, name: &str, help: &str, value: f64) {
        self.family(name, "gauge", help);
        self.sample(name, &[], value);
    }
}

fn seconds(value: Option<i64>) -> f64 {
    // Nothing waiting: age 0, so that alerts on age stay quiet.
    value.unwrap_or(0) as f64
}

/// The status as a Prometheus text exposition, with `pools`, each named by
/// the part it connects to (`state_db`, `mailbox`).
pub fn render(status: &Status, pools: &[(&str, PoolCount)], topics: &Topics) -> String {
    let mut out = Exposition(String::new());
    up(&mut out, status);
    pool_counts(&mut out, pools);
    if let Some(backlog) = &status.mailbox {
        mailbox(&mut out, backlog);
    }
    let Some(state) = &status.state else {
        return out.0;
    };
    messages(&mut out, state);
    messages_applied(&mut out, state);
    messages_waiting_for_an_operator(&mut out, state);
    outbox(&mut out, &state.outbox, topics, status.taken_at);
    lease(&mut out, &state.lease);
    days(&mut out, state);
    evidence(&mut out, state);
    histograms(&mut out, topics);
    out.0
}

/// Whether each part answered this scrape; the mailbox only where the
/// process has one.
fn up(out: &mut Exposition, status: &Status) {
    out.family(
        "flightstate_up",
        "gauge",
        "Whether the part answered this scrape (1) or not (0)",
    );
    out.sample(
        "flightstate_up",
        &[("part", "state_db")],
        f64::from(u8::from(status.state.is_some())),
    );
    if status.mailbox_configured {
        out.sample(
            "flightstate_up",
            &[("part", "mailbox")],
            f64::from(u8::from(status.mailbox.is_some())),
        );
    }
}

/// The inbound queue: what waits for the pump, and for how long.
fn mailbox(out: &mut Exposition, backlog: &Backlog) {
    out.gauge(
        "flightstate_mailbox_pending",
        "Inbound mailbox rows waiting for the pump",
        backlog.pending as f64,
    );
    out.gauge(
        "flightstate_mailbox_oldest_pending_age_seconds",
        "How long the oldest pending mailbox row has waited (0 when none)",
        seconds(backlog.oldest_age_secs),
    );
}

/// Every count of `PROC_STATE`, by status, error kind and message kind.
fn messages(out: &mut Exposition, state: &StateFacts) {
    out.family(
        "flightstate_messages",
        "gauge",
        "Messages recorded in PROC_STATE by status, error kind and message kind",
    );
    for count in &state.messages {
        out.sample(
            "flightstate_messages",
            &[
                ("status", count.status.code()),
                ("error_kind", count.error_kind.as_deref().unwrap_or("")),
                ("type", count.msg_type.as_deref().unwrap_or("")),
                ("subtype", count.msg_subtype.as_deref().unwrap_or("")),
            ],
            count.messages as f64,
        );
    }
}

/// The SUCCEEDED counts summed by message kind, in the order the kinds
/// first appear.
fn messages_applied(out: &mut Exposition, state: &StateFacts) {
    out.family(
        "flightstate_messages_applied",
        "gauge",
        "Messages applied (PROC_STATE SUCCEEDED) by message kind",
    );
    let mut applied: Vec<(&str, &str, i64)> = Vec::new();
    for count in state
        .messages
        .iter()
        .filter(|c| c.status == ProcStatus::Succeeded)
    {
        let key = (
            count.msg_type.as_deref().unwrap_or(""),
            count.msg_subtype.as_deref().unwrap_or(""),
        );
        match applied.iter_mut().find(|(t, s, _)| (*t, *s) == key) {
            Some(entry) => entry.2 += count.messages,
            None => applied.push((key.0, key.1, count.messages)),
        }
    }
    for (msg_type, subtype, messages) in applied {
        out.sample(
            "flightstate_messages_applied",
            &[("type", msg_type), ("subtype", subtype)],
            messages as f64,
        );
    }
}

/// The messages an operator has to look at (DEAD, HELD), and the
/// unsupported ones.
fn messages_waiting_for_an_operator(out: &mut Exposition, state: &StateFacts) {
    out.gauge(
        "flightstate_messages_dead",
        "Messages given up (DEAD); each needs an operator",
        state.count_of(ProcStatus::Dead) as f64,
    );
    out.gauge(
        "flightstate_messages_held",
        "Snapshots held by the mass-delete guard (HELD); the queue waits for an operator",
        state.count_of(ProcStatus::Held) as f64,
    );
    out.gauge(
        "flightstate_messages_unsupported",
        "Messages whose latest failure is UNSUPPORTED (FAILED or DEAD)",
        state.count_of_kind("UNSUPPORTED") as f64,
    );
}

/// The outbox rows still to send and the age of the oldest, per topic,
/// aged at `taken_at`.
fn outbox(out: &mut Exposition, outbox: &OutboxBacklog, topics: &Topics, taken_at: NaiveDateTime) {
    out.family(
        "flightstate_outbox_pending",
        "gauge",
        "Outbox rows still to send, per topic",
    );
    out.sample(
        "flightstate_outbox_pending",
        &[("topic", &topics.state)],
        outbox.state_events as f64,
    );
    out.sample(
        "flightstate_outbox_pending",
        &[("topic", &topics.change)],
        outbox.change_notices as f64,
    );
    out.family(
        "flightstate_outbox_oldest_age_seconds",
        "gauge",
        "How long the oldest outbox row still to send has waited, per topic (0 when none)",
    );
    out.sample(
        "flightstate_outbox_oldest_age_seconds",
        &[("topic", &topics.state)],
        seconds(age_secs(outbox.state_oldest, taken_at)),
    );
    out.sample(
        "flightstate_outbox_oldest_age_seconds",
        &[("topic", &topics.change)],
        seconds(age_secs(outbox.change_oldest, taken_at)),
    );
}

/// The pump lease: its holder, epoch and time left.
fn lease(out: &mut Exposition, lease: &Lease) {
    out.family(
        "flightstate_lease_holder",
        "gauge",
        "The pump lease: 1 for the holder while held, 0 once it ran out",
    );
    if let Some(holder) = &lease.holder {
        out.sample(
            "flightstate_lease_holder",
            &[("holder", holder)],
            f64::from(u8::from(lease.held)),
        );
    }
    out.gauge(
        "flightstate_lease_epoch",
        "The fencing epoch of the pump lease (bumped by every takeover)",
        lease.epoch as f64,
    );
    out.gauge(
        "flightstate_lease_expires_in_seconds",
        "Seconds until the pump lease runs out (negative: ran out that long ago)",
        seconds(lease.expires_in_secs),
    );
}

/// The snapshot version and the flights of each recent operation day.
fn days(out: &mut Exposition, state: &StateFacts) {
    out.family(
        "flightstate_snapshot_version",
        "gauge",
        "Snapshot version (SCHD_GEN.VERSION) of each recent operation day",
    );
    for day in &state.days {
        out.sample(
            "flightstate_snapshot_version",
            &[("operation_day", &day.operation_day.to_string())],
            day.version as f64,
        );
    }
    out.family(
        "flightstate_day_flights",
        "gauge",
        "Flights stored with each recent operation day",
    );
    for day in &state.days {
        out.sample(
            "flightstate_day_flights",
            &[("operation_day", &day.operation_day.to_string())],
            day.flights as f64,
        );
    }
}

/// The head-blocked alert, and the evidence of the upstream's order and
/// SEQN (docs/open-questions.md).
fn evidence(out: &mut Exposition, state: &StateFacts) {
    let blocked = state.blocked_head.as_ref();
    out.gauge(
        "flightstate_head_blocked_seconds",
        "How long the head of the queue has been blocked by an infrastructure failure (0 when it is not)",
        blocked.map_or(0.0, |b| b.blocked_secs as f64),
    );
    out.gauge(
        "flightstate_head_blocked_alert",
        "1 while the head has been blocked by an infrastructure failure for longer than pump.head_blocked_alert_secs",
        f64::from(u8::from(blocked.is_some_and(|b| b.alert))),
    );
    out.family(
        "flightstate_order_late_events",
        "counter",
        "Flight events applied after their day's snapshot although their DTTM is older (rule M evidence), per recent operation day",
    );
    for day in &state.order {
        out.sample(
            "flightstate_order_late_events",
            &[("operation_day", &day.operation_day.to_string())],
            day.late_events as f64,
        );
    }
    out.family(
        "flightstate_order_stale_snapshots",
        "counter",
        "Snapshots applied after events of their day with a newer DTTM, which they overwrote (rule M evidence), per recent operation day",
    );
    for day in &state.order {
        out.sample(
            "flightstate_order_stale_snapshots",
            &[("operation_day", &day.operation_day.to_string())],
            day.stale_snapshots as f64,
        );
    }
    out.family(
        "flightstate_seqn_messages",
        "counter",
        "Inbound messages whose SEQN was counted, per sender",
    );
    for s in &state.senders {
        out.sample(
            "flightstate_seqn_messages",
            &[("sender", &s.sender)],
            s.messages as f64,
        );
    }
    out.family(
        "flightstate_seqn_anomalies",
        "counter",
        "Inbound SEQN anomalies per sender and kind: repeat, gap, reset (not the wrap 999999 to 000000), unreadable",
    );
    for s in &state.senders {
        for (kind, count) in [
            ("repeat", s.repeats),
            ("gap", s.gaps),
            ("reset", s.resets),
            ("unreadable", s.unreadable),
        ] {
            out.sample(
                "flightstate_seqn_anomalies",
                &[("sender", &s.sender), ("kind", kind)],
                count as f64,
            );
        }
    }
    out.family(
        "flightstate_seqn_missing",
        "counter",
        "SEQN numbers skipped by gaps, per sender",
    );
    for s in &state.senders {
        out.sample(
            "flightstate_seqn_missing",
            &[("sender", &s.sender)],
            s.missing as f64,
        );
    }
}

/// The connections of this process's pools, whether or not their servers
/// answered this scrape: every pool the same way, r2d2's count.
fn pool_counts(out: &mut Exposition, pools: &[(&str, PoolCount)]) {
    out.family(
        "flightstate_pool_connections",
        "gauge",
        "Connections of this process's pool to the part, idle or in use",
    );
    for (part, count) in pools {
        for (state, connections) in [("idle", count.idle), ("in_use", count.in_use())] {
            out.sample(
                "flightstate_pool_connections",
                &[("part", part), ("state", state)],
                f64::from(connections),
            );
        }
    }
    out.family(
        "flightstate_pool_max_connections",
        "gauge",
        "The most connections this process's pool to the part opens (its pool_size)",
    );
    for (part, count) in pools {
        out.sample(
            "flightstate_pool_max_connections",
            &[("part", part)],
            f64::from(count.max),
        );
    }
}

/// The histograms of this process: zero counts where the part does not
/// run in it (`flightstate serve` alone has neither pump nor dispatcher).
fn histograms(out: &mut Exposition, topics: &Topics) {
    histogram(
        out,
        "flightstate_apply_seconds",
        "Time to apply a message (its share of a group commit), by the pump of this process",
        &[(&[], crate::histogram::APPLY_LATENCY.read())],
    );
    let freshness = &crate::dispatch::PUBLISH_FRESHNESS;
    histogram(
        out,
        "flightstate_publish_freshness_seconds",
        "Time from the mailbox's receipt of a message to the broker's confirmation of the records of its change, per delivered outbox row, by the dispatcher of this process",
        &[
            (&[("topic", &topics.state)], freshness.state.read()),
            (&[("topic", &topics.change)], freshness.change.read()),
        ],
    );
}

/// One histogram family: the buckets, sum and count of each of its
/// `series`, each with its own labels.
fn histogram(out: &mut Exposition, name: &str, help: &str, series: &[(&[(&str, &str)], Reading)]) {
    out.family(name, "histogram", help);
    let (bucket, sum, count) = (
        format!("{name}_bucket"),
        format!("{name}_sum"),
        format!("{name}_count"),
    );
    for (labels, reading) in series {
        for (bound, observations) in &reading.cumulative {
            let le = if bound.is_infinite() {
                "+Inf".to_owned()
            } else {
                bound.to_string()
            };
            let mut with_le = labels.to_vec();
            with_le.push(("le", &le));
            out.sample(&bucket, &with_le, *observations as f64);
        }
        out.sample(&sum, labels, reading.sum_seconds);
        out.sample(&count, labels, reading.count as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }

    #[test]
    fn a_histogram_renders_each_series_with_its_labels_before_le() {
        static H: crate::histogram::Histogram = crate::histogram::Histogram::new(&[1.0, 30.0]);
        H.observe(std::time::Duration::from_secs(20), 1);
        let mut out = Exposition(String::new());
        histogram(
            &mut out,
            "x_seconds",
            "Help",
            &[(&[("topic", "flight.state")], H.read()), (&[], H.read())],
        );
        assert_eq!(
            out.0,
            "# HELP x_seconds Help\n\
             # TYPE x_seconds histogram\n\
             x_seconds_bucket{topic=\"flight.state\",le=\"1\"} 0\n\
             x_seconds_bucket{topic=\"flight.state\",le=\"30\"} 1\n\
             x_seconds_bucket{topic=\"flight.state\",le=\"+Inf\"} 1\n\
             x_seconds_sum{topic=\"flight.state\"} 20\n\
             x_seconds_count{topic=\"flight.state\"} 1\n\
             x_seconds_bucket{le=\"1\"} 0\n\
             x_seconds_bucket{le=\"30\"} 1\n\
             x_seconds_bucket{le=\"+Inf\"} 1\n\
             x_seconds_sum 20\n\
             x_seconds_count 1\n"
        );
    }
}
