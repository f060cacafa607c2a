//! The charts of `GET /`: the last 6 hours (or 24, `?hours=24`) of the
//! mailbox, the apply rate and latency, the outbox, and dead and held
//! messages. Levels come from the in-process history (`api::history`);
//! per-minute counts from `PROC_STATE`'s own outcome times
//! (`select_proc_minutes`), read in a read-only transaction of their own.

use std::collections::BTreeMap;

use chrono::{Duration, NaiveDateTime};

use super::charts::{self, Series, Window};
use super::history::{History, Sample};
use super::html::escape;
use crate::store::{BrowseOps, ProcMinute, ProcStatus, ReadOps, Store, StoreError};

/// How often the page reloads itself unless `?refresh=off`: the history's
/// sampling interval, so each reload can show a new point.
pub const REFRESH_SECS: u32 = 60;

/// What `GET /` was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageOptions {
    /// Hours the charts span: 6 or 24.
    pub hours: i64,
    /// Whether the page reloads itself.
    pub refresh: bool,
}

impl PageOptions {
    /// Reads `hours=6|24` and `refresh=on|off`.
    ///
    /// # Errors
    ///
    /// Names the parameter or value that is not one of these.
    pub fn parse(query: &str) -> Result<PageOptions, String> {
        let mut options = PageOptions {
            hours: 6,
            refresh: true,
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=').unwrap_or((pair, "")) {
                ("hours", "6") => options.hours = 6,
                ("hours", "24") => options.hours = 24,
                ("refresh", "on") => options.refresh = true,
                ("refresh", "off") => options.refresh = false,
                ("hours" | "refresh", value) => {
                    return Err(format!(
                        "{value:?} is not a choice here (hours: 6 or 24; refresh: on or off)"
                    ));
                }
                (other, _) => return Err(format!("unknown parameter {other:?}")),
            }
        }
        Ok(options)
    }
}

fn level(samples: &[Sample], name: &str, pick: impl Fn(&Sample) -> Option<f64>) -> Series {
    Series {
        name: name.to_owned(),
        points: samples
            .iter()
            .filter_map(|s| pick(s).map(|v| (s.at, v)))
            .collect(),
    }
}

fn per_minute(rows: &[ProcMinute], keep: impl Fn(&ProcMinute) -> Option<String>) -> Vec<Series> {
    let mut by_name: BTreeMap<String, Vec<(NaiveDateTime, f64)>> = BTreeMap::new();
    for row in rows {
        if let Some(name) = keep(row) {
            by_name
                .entry(name)
                .or_default()
                .push((row.minute, row.messages as f64));
        }
    }
    by_name
        .into_iter()
        .map(|(name, points)| Series { name, points })
        .collect()
}

fn kind(row: &ProcMinute) -> String {
    match (&row.msg_type, &row.msg_subtype) {
        (Some(t), Some(s)) => format!("{t} {s}"),
        (Some(t), None) => t.clone(),
        _ => "unreadable".to_owned(),
    }
}

/// The charts' HTML for the `hours` before `now`.
pub fn render<S: Store>(store: &S, history: &History, now: NaiveDateTime, hours: i64) -> String {
    let window = Window {
        start: now - Duration::hours(hours),
        end: now,
    };
    let samples = history.since(window.start);
    let mut out = String::with_capacity(32 * 1024);
    out.push_str("<h2 id=\"charts\">The last hours</h2>");
    mailbox_charts(&mut out, &window, &samples);
    let minutes = store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        tx.select_proc_minutes(window.start)
    });
    applied_chart(&mut out, &window, &minutes);
    latency_chart(&mut out, &window, &samples);
    outbox_charts(&mut out, &window, &samples);
    if let Ok(rows) = &minutes {
        dead_held_chart(&mut out, &window, rows);
    }
    out
}

/// The mailbox's backlog and the age of its oldest pending row.
fn mailbox_charts(out: &mut String, window: &Window, samples: &[Sample]) {
    charts::lines(
        out,
        "chart-mailbox",
        "Mailbox backlog (rows)",
        "",
        window,
        &[level(samples, "pending", |s| {
            s.mailbox_pending.map(|v| v as f64)
        })],
    );
    charts::lines(
        out,
        "chart-mailbox-age",
        "Oldest pending mailbox row (seconds)",
        " s",
        window,
        &[level(samples, "oldest", |s| {
            s.mailbox_oldest_secs.map(|v| v as f64)
        })],
    );
}

/// The messages applied per minute by kind, or why they could not be read.
fn applied_chart(out: &mut String, window: &Window, minutes: &Result<Vec<ProcMinute>, StoreError>) {
    match minutes {
        Ok(rows) => charts::bars(
            out,
            "chart-applied",
            "Messages applied per minute, by kind",
            window,
            &per_minute(rows, |r| {
                (r.status == ProcStatus::Succeeded).then(|| kind(r))
            }),
        ),
        Err(e) => {
            out.push_str(&format!(
                "<p class=\"bad\">Messages per minute unavailable: {}</p>",
                escape(&format!("{e:#}"))
            ));
        }
    }
}

/// This process's pump's apply latency, p50 and p99.
fn latency_chart(out: &mut String, window: &Window, samples: &[Sample]) {
    charts::lines(
        out,
        "chart-latency",
        "Apply latency per minute (seconds, p50 and p99; this process's pump)",
        " s",
        window,
        &[
            level(samples, "p50", |s| s.apply_p50),
            level(samples, "p99", |s| s.apply_p99),
        ],
    );
}

/// The outbox's rows still to send and the age of the oldest, per topic.
fn outbox_charts(out: &mut String, window: &Window, samples: &[Sample]) {
    charts::lines(
        out,
        "chart-outbox",
        "Outbox pending (rows), per topic",
        "",
        window,
        &[
            level(samples, "state (KAFKA_SCHD)", |s| {
                s.state_pending.map(|v| v as f64)
            }),
            level(samples, "change (KAFKA_MSG)", |s| {
                s.change_pending.map(|v| v as f64)
            }),
        ],
    );
    charts::lines(
        out,
        "chart-outbox-age",
        "Oldest outbox row (seconds), per topic",
        " s",
        window,
        &[
            level(samples, "state (KAFKA_SCHD)", |s| {
                s.state_oldest_secs.map(|v| v as f64)
            }),
            level(samples, "change (KAFKA_MSG)", |s| {
                s.change_oldest_secs.map(|v| v as f64)
            }),
        ],
    );
}

/// The messages recorded dead or held per minute.
fn dead_held_chart(out: &mut String, window: &Window, rows: &[ProcMinute]) {
    charts::bars(
        out,
        "chart-dead-held",
        "Messages recorded dead or held, per minute",
        window,
        &per_minute(rows, |r| match r.status {
            ProcStatus::Dead => Some("dead".to_owned()),
            ProcStatus::Held => Some("held".to_owned()),
            _ => None,
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_documented_choices_are_taken() {
        assert_eq!(
            PageOptions::parse(""),
            Ok(PageOptions {
                hours: 6,
                refresh: true
            })
        );
        assert_eq!(
            PageOptions::parse("hours=24&refresh=off"),
            Ok(PageOptions {
                hours: 24,
                refresh: false
            })
        );
        for bad in ["hours=12", "refresh=no", "hour=6", "hours=6%27"] {
            assert!(PageOptions::parse(bad).is_err(), "{bad}");
        }
    }
}
