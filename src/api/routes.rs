//! What each request gets: the routing table, parameter checks, bearer
//! token. Answers are built here; the server only sends them.

use chrono::NaiveDate;
use sha2::{Digest, Sha256};

use super::dashboard::{self, PageOptions};
use super::history::History;
use super::record_page::{self, View};
use super::reply::Reply;
use super::{Api, chrome, dead_page, flight_page, flights, health, metrics, page, search, status};
use crate::store::{PoolCount, ReadOps, Selection, Store};

const JSON: &str = "application/json";

fn json(status: u16, body: String) -> Reply {
    Reply::Full {
        status,
        content_type: JSON,
        body: body.into_bytes(),
    }
}

/// A JSON error: `{"error": why}`.
pub fn error(status: u16, why: &str) -> Reply {
    json(status, serde_json::json!({ "error": why }).to_string())
}

/// Whether `given` is the token, in time that does not depend on where
/// they differ: both are hashed first, so the comparison always runs over
/// 32 bytes, whatever their lengths.
pub fn token_matches(given: &str, token: &str) -> bool {
    let given = Sha256::digest(given.as_bytes());
    let token = Sha256::digest(token.as_bytes());
    given
        .iter()
        .zip(token.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

/// Whether a request with `authorization` (the header's value, if any)
/// may be answered.
pub fn authorised(token: Option<&str>, authorization: Option<&str>) -> bool {
    let Some(token) = token else {
        return true;
    };
    authorization
        .and_then(|value| value.strip_prefix("Bearer "))
        .is_some_and(|given| token_matches(given.trim(), token))
}

/// The query parameters of `query` (`a=1&b=2`), undecoded: the parameters
/// this API takes are dates, which need no decoding.
fn parameters(query: &str) -> Vec<(&str, &str)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect()
}

fn all_flights<S: Store + Clone>(api: &Api<S>, query: &str) -> Reply {
    let mut selection = Selection::All;
    for (key, value) in parameters(query) {
        match key {
            "operation_day" => match NaiveDate::parse_from_str(value, "%Y-%m-%d") {
                Ok(day) => selection = Selection::Day(day),
                Err(_) => {
                    return error(
                        400,
                        &format!("operation_day {value:?} is not a date (YYYY-MM-DD)"),
                    );
                }
            },
            other => return error(400, &format!("unknown parameter {other:?}")),
        }
    }
    // Which days the answer holds: the one asked for, or those the state
    // holds as the read begins.
    let operation_days = match selection {
        Selection::Day(day) => day.to_string(),
        Selection::All => match api.store.transaction(|tx| tx.select_held_days()) {
            Ok(held) => held.to_string(),
            Err(why) => return error(503, &format!("state database unavailable: {why}")),
        },
    };
    match flights::stream(&api.store, selection, api.settings.page_size) {
        Ok(body) => Reply::Stream {
            body,
            operation_days,
        },
        Err(why) => error(503, &format!("state database unavailable: {why}")),
    }
}

fn one_flight<S: Store + Clone>(api: &Api<S>, flid: &str, query: &str) -> Reply {
    if !query.is_empty() {
        return error(400, "this resource takes no parameters");
    }
    let flid = match flid.parse::<i64>() {
        Ok(flid) if flid > 0 => flid,
        _ => return error(400, &format!("{flid:?} is not a FLID (a positive integer)")),
    };
    match flights::one(&api.store, flid) {
        Ok(Some(document)) => json(200, document),
        Ok(None) => error(404, &format!("no flight {flid}")),
        Err(e) => {
            tracing::warn!(flid, error = format!("{e:#}"), "a flight read failed");
            error(503, &format!("state database unavailable: {e:#}"))
        }
    }
}

fn status_page<S: Store + Clone>(api: &Api<S>, history: &History, query: &str) -> Reply {
    let options = match PageOptions::parse(query) {
        Ok(options) => options,
        Err(why) => return chrome::error(400, &why),
    };
    let status = api.status();
    let charts = dashboard::render(&api.store, history, status.taken_at, options.hours);
    chrome::html(200, page::render(&status, &options, &charts, None))
}

/// The answer to `GET url` (path and query); `history` feeds the status
/// page's charts.
pub fn get<S: Store + Clone>(api: &Api<S>, history: &History, url: &str) -> Reply {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    match path {
        "/" => status_page(api, history, query),
        "/search" => search::get(api, query),
        "/metrics" => {
            let status = api.status();
            Reply::Full {
                status: 200,
                content_type: "text/plain; version=0.0.4; charset=utf-8",
                body: metrics::render(&status, &api.pool_counts(), &api.settings.topics)
                    .into_bytes(),
            }
        }
        "/healthz" => {
            let health = health::check(
                &api.store,
                api.mailbox.as_ref(),
                api.settings.kafka.as_ref(),
                api.settings.check_timeout,
            );
            let code = if health.ok() { 200 } else { 503 };
            json(
                code,
                serde_json::to_string(&health).unwrap_or_else(|_| "{}".to_owned()),
            )
        }
        "/all/flights" => all_flights(api, query),
        "/dead" => dead_page::get(&api.store, query, None),
        _ => {
            if let Some(flid) = path.strip_prefix("/flights/") {
                one_flight(api, flid, query)
            } else if let Some(flid) = path.strip_prefix("/flight/") {
                flight_page::get(&api.store, flid, query)
            } else if let Some(id) = path.strip_prefix("/message/") {
                record_page::get(&api.store, id, query, View::Record)
            } else if let Some(id) = path.strip_prefix("/dead/") {
                record_page::get(&api.store, id, query, View::DeadLetter)
            } else {
                error(404, &format!("no resource {path}"))
            }
        }
    }
}

impl<S: Store + Clone> Api<S> {
    /// The status now.
    pub fn status(&self) -> status::Status {
        status::collect(&self.store, self.mailbox.as_deref(), self.settings.limits)
    }

    /// The connections of the pools it reads through, by part.
    fn pool_counts(&self) -> Vec<(&'static str, PoolCount)> {
        let state_db = self.store.pool_count().map(|count| ("state_db", count));
        let mailbox = self.mailbox.as_ref().map(|m| ("mailbox", m.pool_count()));
        state_db.into_iter().chain(mailbox).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_token_lets_in() {
        assert!(authorised(None, None));
        assert!(authorised(Some("s3cret"), Some("Bearer s3cret")));
        assert!(!authorised(Some("s3cret"), Some("Bearer s3cre")));
        assert!(!authorised(Some("s3cret"), Some("s3cret")));
        assert!(!authorised(Some("s3cret"), None));
    }
}
