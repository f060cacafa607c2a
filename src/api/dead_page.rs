//! `GET /dead?kind=…&error=…&day=…`: the dead letters that match a filter
//! (error kind, words of the reason, the UTC day the outcome was recorded),
//! lowest id first. An operator's copy (`/operator/dead`) has a requeue button
//! on each row and one for all that match.

use std::fmt::Write as _;

use chrono::NaiveDate;

use super::chrome;
use super::forms::{OperatorView, action_form};
use super::html::escape;
use super::reply::Reply;
use crate::store::{DeadFilter, DeadOps, MessageRecord, ReadOps, Store};

/// Rows the page lists at most; a requeue of all that match takes them
/// all (at most the command line's limit).
const LISTED: i64 = 200;

/// A dead-letter filter as a page's form gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Filter {
    /// `ERROR_KIND`, whole.
    pub kind: String,
    /// Words of `ERROR_TEXT`.
    pub error: String,
    /// The UTC day the outcome was recorded.
    pub day: Option<NaiveDate>,
}

impl Filter {
    /// Reads `kind`, `error` and `day` from decoded form fields, ignoring
    /// the names in `other` (a form's token, its confirmation).
    ///
    /// # Errors
    ///
    /// An unknown field, or a day that is not a date.
    pub fn read(fields: &[(String, String)], other: &[&str]) -> Result<Filter, String> {
        let mut filter = Filter::default();
        for (key, value) in fields {
            let value = value.trim();
            match key.as_str() {
                "kind" => filter.kind = value.to_owned(),
                "error" => filter.error = value.to_owned(),
                "day" if value.is_empty() => filter.day = None,
                "day" => {
                    filter.day = Some(
                        NaiveDate::parse_from_str(value, "%Y-%m-%d")
                            .map_err(|_| format!("day {value:?} is not a date (YYYY-MM-DD)"))?,
                    );
                }
                name if other.contains(&name) => {}
                name => return Err(format!("unknown parameter {name:?}")),
            }
        }
        Ok(filter)
    }

    /// The store's filter.
    pub fn as_store(&self) -> DeadFilter<'_> {
        DeadFilter {
            error_kind: (!self.kind.is_empty()).then_some(self.kind.as_str()),
            error_text: (!self.error.is_empty()).then_some(self.error.as_str()),
            day: self.day,
            since: None,
        }
    }

    /// As hidden fields of a form.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("kind", self.kind.clone()),
            ("error", self.error.clone()),
            ("day", self.day.map_or_else(String::new, |d| d.to_string())),
        ]
    }

    /// For people: `kind BAD_INPUT, reason containing "x", recorded 2026-…`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.kind.is_empty() {
            parts.push(format!("kind {}", self.kind));
        }
        if !self.error.is_empty() {
            parts.push(format!("reason containing {:?}", self.error));
        }
        if let Some(day) = self.day {
            parts.push(format!("recorded on {day} (UTC)"));
        }
        if parts.is_empty() {
            "every dead letter".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// The dead letters `filter` selects, at most `limit`.
pub(super) fn matching<S: Store>(
    store: &S,
    filter: &Filter,
    limit: i64,
) -> Result<Vec<MessageRecord>, crate::store::StoreError> {
    store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        tx.select_dead_letters(filter.as_store(), limit)
    })
}

/// The answer to `GET /dead?…` (`operator`: the operator's copy).
pub(super) fn get<S: Store>(store: &S, query: &str, operator: Option<&OperatorView>) -> Reply {
    let Some(fields) = chrome::form_parameters(query) else {
        return chrome::error(400, "the query is not UTF-8 once decoded");
    };
    let filter = match Filter::read(&fields, &[]) {
        Ok(filter) => filter,
        Err(why) => return chrome::error(400, &why),
    };
    match matching(store, &filter, LISTED) {
        Ok(letters) => chrome::html(200, render(&filter, &letters, operator)),
        Err(e) => chrome::error(503, &format!("state database unavailable: {e:#}")),
    }
}

fn render(filter: &Filter, letters: &[MessageRecord], operator: Option<&OperatorView>) -> String {
    let mut out = String::with_capacity(8 * 1024);
    chrome::open(&mut out, "flightstate: dead letters", None, "");
    let base = if operator.is_some() { "/operator" } else { "" };
    let _ = write!(
        out,
        "<h1>Dead letters</h1><p><a href=\"{base}/\">Status</a></p>\
         <form id=\"dead-filter\" action=\"{base}/dead\" method=\"get\">\
         <label>Kind <input name=\"kind\" value=\"{}\" placeholder=\"BAD_INPUT\" size=\"14\"></label> \
         <label>Reason <input name=\"error\" value=\"{}\" size=\"20\"></label> \
         <label>Day (UTC) <input name=\"day\" value=\"{}\" placeholder=\"YYYY-MM-DD\" size=\"10\"></label> \
         <button type=\"submit\" id=\"filter-button\">Filter</button></form>\
         <p id=\"dead-matching\">{} match: {}.</p>",
        escape(&filter.kind),
        escape(&filter.error),
        filter.day.map_or_else(String::new, |d| d.to_string()),
        letters.len(),
        escape(&filter.describe()),
    );
    if let (Some(view), false) = (operator, letters.is_empty()) {
        let fields = filter.fields();
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        action_form(
            &mut out,
            view,
            "requeue-matching",
            &fields,
            "Requeue all that match…",
            "requeue-matching",
        );
    }
    out.push_str(
        "<div class=\"wrap\"><table id=\"dead-letters\"><tr><th>Message</th><th>Kind</th>\
         <th>Error</th><th>Reason</th><th>When (UTC)</th><th>Requeued</th></tr>",
    );
    for r in letters {
        let _ = write!(
            out,
            "<tr id=\"dead-{id}\"><td><a href=\"/dead/{id}\">{id}</a></td><td>{}</td><td>{}</td>\
             <td class=\"reason\">{}</td><td>{}</td><td>{}",
            escape(&format!(
                "{} {}",
                r.msg_type.as_deref().unwrap_or(""),
                r.msg_subtype.as_deref().unwrap_or("")
            )),
            escape(r.error_kind.as_deref().unwrap_or("–")),
            escape(r.error_text.as_deref().unwrap_or("–")),
            r.updated_at.format("%Y-%m-%d %H:%M:%S"),
            r.requeue_count,
            id = r.message_id,
        );
        if let Some(view) = operator {
            let id = r.message_id.to_string();
            action_form(
                &mut out,
                view,
                "requeue",
                &[("id", &id)],
                "Requeue",
                &format!("requeue-{id}"),
            );
        }
        out.push_str("</td></tr>");
    }
    if letters.is_empty() {
        out.push_str("<tr><td colspan=\"6\" class=\"none\">none</td></tr>");
    }
    out.push_str("</table></div>");
    chrome::close(&mut out);
    out
}
