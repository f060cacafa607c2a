//! `GET /`: the status as one HTML page, rendered here, with its style
//! inline and no script: it works behind any proxy, offline, and on a
//! phone. What needs a person comes first; an empty table says "none".
//! Every value that comes from data (holder names, error texts, message
//! kinds) is HTML-escaped.

use std::fmt::Write as _;

use super::chrome;
use super::dashboard::{PageOptions, REFRESH_SECS};
use super::forms::{OperatorView, action_form, request_day_form};
use super::html::escape;
use super::status::{StateFacts, Status, age_secs};
use crate::store::ProcStatus;

fn opt<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "–".to_owned(), |v| escape(&v.to_string()))
}

/// A UTC time to the second.
fn time(t: chrono::NaiveDateTime) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// An outbox row older than this needs a person: the dispatcher sends
/// within seconds while the broker is reachable.
pub const OUTBOX_ALERT_SECS: i64 = 300;

/// The status page: what needs a person first, then the facts, then the
/// charts (`charts`, already rendered), as `options` asks; an operator's
/// copy (`operator`) carries the action forms.
pub fn render(
    status: &Status,
    options: &PageOptions,
    charts: &str,
    operator: Option<&OperatorView>,
) -> String {
    let mut out = String::with_capacity(16 * 1024 + charts.len());
    chrome::open(
        &mut out,
        "flightstate status",
        options.refresh.then_some(REFRESH_SECS),
        "",
    );
    write_heading(&mut out, status, options, operator);
    write_attention(&mut out, status);
    write_mailbox(&mut out, status);
    match &status.state {
        Some(state) => {
            write_lease(&mut out, state);
            write_messages(&mut out, state, operator);
            write_evidence(&mut out, state);
            write_outbox(&mut out, state, status.taken_at);
            write_days(&mut out, state);
            write_requests(&mut out, state, operator);
            write_dead(&mut out, state, operator);
            write_actions(&mut out, state);
        }
        None => {
            let _ = write!(
                out,
                "<h2>State database</h2><p id=\"state-error\" class=\"bad\">unavailable: {}</p>",
                opt(status.state_error.as_deref())
            );
        }
    }
    out.push_str(charts);
    chrome::close(&mut out);
    out
}

fn write_heading(
    out: &mut String,
    status: &Status,
    options: &PageOptions,
    operator: Option<&OperatorView>,
) {
    let _ = write!(
        out,
        "<h1>flightstate</h1><p>Status at <time id=\"taken-at\">{} UTC</time>; {}</p>",
        time(status.taken_at),
        if options.refresh {
            format!("reloads every {REFRESH_SECS} s")
        } else {
            "does not reload".to_owned()
        }
    );
    if let Some(view) = operator {
        let _ = write!(
            out,
            "<p id=\"operator\">Signed in as operator <b>{}</b>: actions are recorded in your \
             name. <a href=\"/\">The read-only page</a></p>",
            escape(&view.account)
        );
    }
    switches(
        out,
        options,
        if operator.is_some() { "/operator" } else { "/" },
    );
}

fn write_mailbox(out: &mut String, status: &Status) {
    out.push_str("<h2>Mailbox</h2><dl>");
    match &status.mailbox {
        Some(b) => {
            let _ = write!(
                out,
                "<dt>Backlog</dt><dd id=\"backlog\">{}</dd>\
                 <dt>Head message</dt><dd id=\"head\">{}</dd>\
                 <dt>Oldest pending</dt><dd id=\"oldest-pending\">{}</dd>",
                b.pending,
                opt(b.head_id),
                b.oldest_age_secs
                    .map_or_else(|| "–".to_owned(), |s| format!("{s} s"))
            );
        }
        None => {
            let _ = write!(
                out,
                "<dt>Backlog</dt><dd id=\"backlog\" class=\"bad\">unavailable: {}</dd>",
                opt(status.mailbox_error.as_deref())
            );
        }
    }
    out.push_str("</dl>");
}

fn write_lease(out: &mut String, state: &StateFacts) {
    let lease = &state.lease;
    let _ = write!(
        out,
        "<h2>Pump lease</h2><dl><dt>Holder</dt><dd id=\"lease-holder\">{}</dd>\
         <dt>State</dt><dd id=\"lease-state\" class=\"{}\">{}</dd>\
         <dt>Epoch</dt><dd id=\"lease-epoch\">{}</dd>\
         <dt>Expires</dt><dd id=\"lease-expires\">{}</dd></dl>",
        opt(lease.holder.as_deref()),
        if lease.held { "ok" } else { "bad" },
        if lease.held { "held" } else { "not held" },
        lease.epoch,
        opt(lease.expires_at.map(time)),
    );
}

/// `bad` when `count` is above 0, else `ok`.
fn alarm(count: i64) -> &'static str {
    if count > 0 { "bad" } else { "ok" }
}

fn write_messages(out: &mut String, state: &StateFacts, operator: Option<&OperatorView>) {
    let _ = write!(
        out,
        "<h2>Messages</h2><dl><dt>Applied</dt><dd id=\"applied\">{}</dd>\
         <dt>Failed (retrying)</dt><dd id=\"failed\">{}</dd>\
         <dt>Dead</dt><dd id=\"dead-count\" class=\"{}\">{}</dd>\
         <dt>Unsupported</dt><dd id=\"unsupported\">{}</dd>\
         <dt>Held (queue waits)</dt><dd id=\"held-count\" class=\"{}\">{}</dd></dl>",
        state.count_of(ProcStatus::Succeeded),
        state.count_of(ProcStatus::Failed),
        alarm(state.count_of(ProcStatus::Dead)),
        state.count_of(ProcStatus::Dead),
        state.count_of_kind("UNSUPPORTED"),
        alarm(state.count_of(ProcStatus::Held)),
        state.count_of(ProcStatus::Held),
    );
    for held in &state.held {
        let id = held.message_id;
        let _ = write!(
            out,
            "<p class=\"bad\" id=\"held-{id}\">Message {id} is HELD: {}. ",
            opt(held.error_text.as_deref()),
        );
        match operator {
            None => {
                let _ = write!(
                    out,
                    "The queue waits for <code>flightstate release {id}</code> or \
                     <code>flightstate reject {id}</code>.</p>"
                );
            }
            Some(view) => {
                out.push_str("The queue waits for your decision.</p>");
                let id = id.to_string();
                for (action, label) in [("release", "Release…"), ("reject", "Reject…")] {
                    let button = format!("{action}-{id}");
                    action_form(out, view, action, &[("id", &id)], label, &button);
                }
            }
        }
    }
}

fn write_outbox(out: &mut String, state: &StateFacts, taken_at: chrono::NaiveDateTime) {
    let o = &state.outbox;
    let age =
        |oldest| age_secs(oldest, taken_at).map_or_else(|| "–".to_owned(), |s| format!("{s} s"));
    let _ = write!(
        out,
        "<h2>Outbox</h2><div class=\"wrap\"><table id=\"outbox\"><tr><th>Outbox</th>\
         <th>Pending</th><th>Oldest</th></tr>\
         <tr><td>KAFKA_SCHD (state)</td><td id=\"outbox-state\">{}</td><td>{}</td></tr>\
         <tr><td>KAFKA_MSG (change)</td><td id=\"outbox-change\">{}</td><td>{}</td></tr>\
         </table></div>",
        o.state_events,
        age(o.state_oldest),
        o.change_notices,
        age(o.change_oldest),
    );
}

fn write_days(out: &mut String, state: &StateFacts) {
    let _ = write!(
        out,
        "<h2>Operation days</h2><p id=\"held-days\">The state holds the operation days \
         {} and {} flights without an operation day.</p>",
        state.held_days, state.held_days.without_day
    );
    out.push_str(
        "<div class=\"wrap\"><table id=\"days\"><tr><th>Day</th>\
         <th>Snapshot version</th><th>Flights</th><th>Listed</th><th>Message</th></tr>",
    );
    for day in &state.days {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            day.operation_day, day.version, day.flights, day.listed, day.last_message_id
        );
    }
    none_row(out, state.days.is_empty(), 5);
    out.push_str("</table></div>");
}

fn write_requests(out: &mut String, state: &StateFacts, operator: Option<&OperatorView>) {
    out.push_str(
        "<h2>Requests</h2><div class=\"wrap\"><table id=\"requests\"><tr><th>Request</th>\
         <th>Kind</th><th>Day</th><th>Status</th><th>SEQN</th><th>Call</th><th>COUTMSGS</th>\
         <th>Attempts</th></tr>",
    );
    for r in &state.requests {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td></tr>",
            r.req_id,
            escape(&r.req_kind),
            r.operation_day.map_or_else(String::new, |d| d.to_string()),
            r.status.code(),
            opt(r.seqn.as_deref()),
            opt(r.call_status.map(|c| c.code())),
            opt(r.remote_ref.as_deref()),
            r.attempts.map_or_else(String::new, |a| a.to_string()),
        );
    }
    none_row(out, state.requests.is_empty(), 8);
    out.push_str("</table></div>");
    if let Some(view) = operator {
        request_day_form(out, view);
    }
}

fn write_dead(out: &mut String, state: &StateFacts, operator: Option<&OperatorView>) {
    let base = if operator.is_some() { "/operator" } else { "" };
    let _ = write!(
        out,
        "<h2>Latest dead messages</h2><p><a id=\"dead-filter-link\" href=\"{base}/dead\">\
         Filter the dead letters</a> by kind, reason and day</p><div class=\"wrap\">\
         <table id=\"dead\"><tr><th>Message</th><th>Kind</th><th>Error</th><th>Reason</th>\
         <th>When (UTC)</th></tr>"
    );
    for dead in &state.dead {
        let kind = match (&dead.msg_type, &dead.msg_subtype) {
            (Some(t), Some(s)) => format!("{t} {s}"),
            (Some(t), None) => t.clone(),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"reason\">{}</td><td>{}",
            dead.message_id,
            escape(&kind),
            opt(dead.error_kind.as_deref()),
            opt(dead.error_text.as_deref()),
            time(dead.updated_at)
        );
        if let Some(view) = operator {
            let id = dead.message_id.to_string();
            let button = format!("requeue-{id}");
            action_form(out, view, "requeue", &[("id", &id)], "Requeue", &button);
        }
        out.push_str("</td></tr>");
    }
    none_row(out, state.dead.is_empty(), 5);
    out.push_str("</table></div>");
}

/// The operators' latest actions, from the command line and the page.
fn write_actions(out: &mut String, state: &StateFacts) {
    out.push_str(
        "<h2>Operator actions</h2><div class=\"wrap\"><table id=\"actions\"><tr>\
         <th>When (UTC)</th><th>Who</th><th>Via</th><th>Action</th><th>On</th>\
         <th>Result</th></tr>",
    );
    for a in &state.actions {
        let on = match (a.message_id, a.operation_day) {
            (Some(id), _) => format!("message {id}"),
            (None, Some(day)) => format!("day {day}"),
            (None, None) => "–".to_owned(),
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            time(a.taken_at),
            escape(&a.taken_by),
            escape(&a.via),
            escape(&a.action),
            on,
            escape(&a.result),
        );
    }
    none_row(out, state.actions.is_empty(), 6);
    out.push_str("</table></div>");
}

/// A table row saying "none" across `columns`, when `empty`.
fn none_row(out: &mut String, empty: bool, columns: u8) {
    if empty {
        let _ = write!(
            out,
            "<tr><td colspan=\"{columns}\" class=\"none\">none</td></tr>"
        );
    }
}

/// The switches: 6 or 24 hours of charts, reloading on or off. Forms, not
/// links, so they work without script and keep the other choice.
fn switches(out: &mut String, options: &PageOptions, page: &str) {
    let refresh = if options.refresh { "on" } else { "off" };
    let other_hours = if options.hours == 24 { 6 } else { 24 };
    let _ = write!(
        out,
        "<form id=\"hours-switch\" action=\"{page}\" method=\"get\">\
         <input type=\"hidden\" name=\"hours\" value=\"{other_hours}\">\
         <input type=\"hidden\" name=\"refresh\" value=\"{refresh}\">\
         <button type=\"submit\">Charts: {other_hours} hours</button></form>\
         <form id=\"refresh-switch\" action=\"{page}\" method=\"get\">\
         <input type=\"hidden\" name=\"hours\" value=\"{hours}\">\
         <input type=\"hidden\" name=\"refresh\" value=\"{other_refresh}\">\
         <button type=\"submit\">{label}</button></form>",
        hours = options.hours,
        other_refresh = if options.refresh { "off" } else { "on" },
        label = if options.refresh {
            "Stop reloading"
        } else {
            "Reload every minute"
        },
    );
}

/// What needs a person, at the top: the parts that cannot be read, a
/// blocked head past its alert, held snapshots, dead letters, an old
/// outbox, a backlog no pump holds the lease for.
fn write_attention(out: &mut String, status: &Status) {
    let mut items: Vec<String> = Vec::new();
    if status.mailbox_configured && status.mailbox.is_none() {
        items.push(format!(
            "The mailbox cannot be read: {}",
            opt(status.mailbox_error.as_deref())
        ));
    }
    if let Some(tail) = &status.lost_tail {
        items.push(format!(
            "<span id=\"lost-tail\">{}</span>: the pump catches it up when it holds the lease, \
             or run <code>flightstate catch-up</code>",
            escape(&tail.describe())
        ));
    }
    match &status.state {
        None => items.push(format!(
            "The state database cannot be read: {}",
            opt(status.state_error.as_deref())
        )),
        Some(state) => {
            if let Some(b) = state.blocked_head.as_ref().filter(|b| b.alert) {
                items.push(format!(
                    "The head of the queue (message {}) has been blocked for {} s by {}",
                    b.message.message_id,
                    b.blocked_secs,
                    escape(&b.message.error_kind)
                ));
            }
            let held = state.count_of(ProcStatus::Held);
            if held > 0 {
                items.push(format!(
                    "{held} snapshot(s) held: the queue waits for release or reject"
                ));
            }
            let dead = state.count_of(ProcStatus::Dead);
            if dead > 0 {
                items.push(format!("{dead} dead letter(s)"));
            }
            let o = &state.outbox;
            for (name, oldest) in [("state", o.state_oldest), ("change", o.change_oldest)] {
                if let Some(age) =
                    age_secs(oldest, status.taken_at).filter(|a| *a >= OUTBOX_ALERT_SECS)
                {
                    items.push(format!(
                        "The {name} outbox's oldest row has waited {age} s (alert after {OUTBOX_ALERT_SECS} s)"
                    ));
                }
            }
            let backlog = status.mailbox.as_ref().map_or(0, |b| b.pending);
            if backlog > 0 && !state.lease.held {
                items.push(format!(
                    "{backlog} message(s) wait and no pump holds the lease"
                ));
            }
        }
    }
    if items.is_empty() {
        out.push_str("<p id=\"attention\" class=\"ok\">Nothing needs a person.</p>");
        return;
    }
    out.push_str("<h2>Needs a person</h2><ul id=\"attention\">");
    for item in items {
        let _ = write!(out, "<li>{item}</li>");
    }
    out.push_str("</ul>");
}

fn cell(value: Option<i64>) -> String {
    value.map_or_else(|| "–".to_owned(), |v| v.to_string())
}

/// The evidence (`api::evidence`) as sections of the status page; every
/// text from the database is escaped.
fn write_evidence(out: &mut String, state: &StateFacts) {
    match &state.blocked_head {
        Some(b) => {
            let _ = write!(
                out,
                "<h2>Head of the queue</h2><p id=\"head-blocked\" class=\"{}\">message {} blocked \
                 {} s by {} ({} attempts; alert after {} s): {}</p>",
                if b.alert { "bad" } else { "ok" },
                b.message.message_id,
                b.blocked_secs,
                escape(&b.message.error_kind),
                b.message.attempts,
                b.alert_after_secs,
                escape(b.message.error_text.as_deref().unwrap_or("–")),
            );
        }
        None => out.push_str(
            "<h2>Head of the queue</h2><p id=\"head-blocked\" class=\"ok\">not blocked by the \
             infrastructure</p>",
        ),
    }
    out.push_str(
        "<h2>Upstream order (rule M)</h2><div class=\"wrap\"><table id=\"order\"><tr>\
         <th>Day</th><th>Late events</th><th>Latest</th><th>After snapshot</th>\
         <th>Stale snapshots</th><th>Latest</th><th>Over event</th></tr>",
    );
    for day in &state.order {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            day.operation_day,
            day.late_events,
            cell(day.last_late_event_id),
            cell(day.late_event_after_id),
            day.stale_snapshots,
            cell(day.last_stale_snapshot_id),
            cell(day.stale_snapshot_over_id),
        );
    }
    none_row(out, state.order.is_empty(), 7);
    out.push_str("</table></div>");
    out.push_str(
        "<h2>Inbound SEQN</h2><div class=\"wrap\"><table id=\"seqn\"><tr><th>Sender</th>\
         <th>Messages</th><th>Last SEQN</th><th>Repeats</th><th>Gaps</th><th>Missing</th>\
         <th>Resets</th><th>Unreadable</th><th>Latest anomaly</th></tr>",
    );
    for s in &state.senders {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td></tr>",
            escape(&s.sender),
            s.messages,
            escape(&s.last_seqn),
            s.repeats,
            s.gaps,
            s.missing,
            s.resets,
            s.unreadable,
            s.latest_anomaly().map_or_else(
                || "–".to_owned(),
                |(kind, at)| format!("{} at {at}", escape(kind))
            ),
        );
    }
    none_row(out, state.senders.is_empty(), 9);
    out.push_str("</table></div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_data_is_escaped() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
    }
}
