//! Test infrastructure for the read API: a plain HTTP/1.1 client over a
//! socket (chunked bodies decoded by hand, so a test sees exactly what the
//! server sent), a small Prometheus text parser, and a server of the
//! test's own on a port the system picks.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{NaiveDate, NaiveDateTime};
use flightstate::api::{self, Api, ApiSettings, Running, StatusLimits, Topics};
use flightstate::mailbox::Mailbox;
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::store::Store;
use flightstate::store::pg::PgStore;

use crate::common::TestDatabase;

/// An answer as the client saw it.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The body of a `Transfer-Encoding: chunked` response.
#[track_caller]
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let line_end = find(raw, b"\r\n").expect("chunk size line");
        let size_text = std::str::from_utf8(&raw[..line_end]).expect("chunk size text");
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .expect("chunk size");
        raw = &raw[line_end + 2..];
        if size == 0 {
            return body;
        }
        assert!(raw.len() >= size + 2, "truncated chunk");
        body.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

/// `method path` with `headers`, on a fresh connection closed after.
#[track_caller]
pub fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut stream = TcpStream::connect(addr).expect("connect to the API");
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .expect("timeout");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("send request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read answer");
    let split = find(&raw, b"\r\n\r\n").expect("end of headers");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let rest = &raw[split + 4..];
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("Transfer-Encoding") && v.eq_ignore_ascii_case("chunked")
    });
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    Answer {
        status,
        headers,
        body,
    }
}

#[track_caller]
pub fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, "GET", path, &[])
}

/// One sample of a Prometheus text exposition.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// Parses a Prometheus text exposition (0.0.4), strictly: every line is a
/// `# HELP`/`# TYPE` comment or a sample; every sample's family was typed
/// before it; label values are quoted with the format's escapes.
pub fn parse_prometheus(text: &str) -> Result<Vec<Sample>, String> {
    let mut typed: Vec<String> = Vec::new();
    let mut samples = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |why: &str| format!("line {}: {why}: {line:?}", n + 1);
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix("# ") {
            let mut words = comment.splitn(3, ' ');
            match (words.next(), words.next(), words.next()) {
                (Some("HELP"), Some(_), Some(_)) => {}
                (Some("TYPE"), Some(name), Some(kind)) => {
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind) {
                        return Err(at("unknown type"));
                    }
                    typed.push(name.to_owned());
                }
                _ => return Err(at("a comment that is neither HELP nor TYPE")),
            }
            continue;
        }
        let name_end = line.find(['{', ' ']).ok_or_else(|| at("no value"))?;
        let name = &line[..name_end];
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            || name.starts_with(|c: char| c.is_ascii_digit())
        {
            return Err(at("bad metric name"));
        }
        let of_family = |t: &String| {
            name == t
                || ["_bucket", "_sum", "_count"]
                    .iter()
                    .any(|suffix| name.strip_suffix(suffix) == Some(t.as_str()))
        };
        if !typed.iter().any(of_family) {
            return Err(at("a sample before its TYPE"));
        }
        let mut rest = &line[name_end..];
        let mut labels = BTreeMap::new();
        if let Some(inner) = rest.strip_prefix('{') {
            let mut chars = inner.char_indices().peekable();
            let mut key = String::new();
            let close;
            loop {
                let (i, c) = chars.next().ok_or_else(|| at("unclosed labels"))?;
                match c {
                    '}' if key.is_empty() => {
                        close = i;
                        break;
                    }
                    '=' => {
                        if chars.next().map(|(_, c)| c) != Some('"') {
                            return Err(at("unquoted label value"));
                        }
                        let mut value = String::new();
                        loop {
                            let (_, c) = chars.next().ok_or_else(|| at("unclosed value"))?;
                            match c {
                                '\\' => match chars.next().map(|(_, c)| c) {
                                    Some('\\') => value.push('\\'),
                                    Some('"') => value.push('"'),
                                    Some('n') => value.push('\n'),
                                    _ => return Err(at("bad escape")),
                                },
                                '"' => break,
                                c => value.push(c),
                            }
                        }
                        labels.insert(std::mem::take(&mut key), value);
                        if chars.peek().map(|(_, c)| *c) == Some(',') {
                            chars.next();
                        }
                    }
                    c if c.is_ascii_alphanumeric() || c == '_' => key.push(c),
                    _ => return Err(at("bad label name")),
                }
            }
            rest = &inner[close + 1..];
        }
        let value_text = rest
            .strip_prefix(' ')
            .ok_or_else(|| at("no space before the value"))?;
        let value: f64 = match value_text {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            "NaN" => f64::NAN,
            v => v.parse().map_err(|_| at("bad value"))?,
        };
        samples.push(Sample {
            name: name.to_owned(),
            labels,
            value,
        });
    }
    Ok(samples)
}

/// The value of the sample `name` whose labels include `labels`.
#[track_caller]
pub fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .unwrap_or_else(|| panic!("no sample {name} {labels:?} in {samples:#?}"))
        .value
}

/// Rules for a test's API.
pub fn settings(token: Option<&str>, brokers: Option<String>) -> ApiSettings {
    ApiSettings {
        token: token.map(str::to_owned),
        page_size: 7,
        check_timeout: Duration::from_secs(3),
        limits: StatusLimits {
            dead_letters: 10,
            days: 5,
            head_blocked_alert_secs: 300,
        },
        topics: Topics {
            state: "flight.state".to_owned(),
            change: "flight.change".to_owned(),
        },
        kafka: brokers.map(flightstate::kafka::KafkaClient::new),
        // UTC: the station's "today" in a test does not hang on the host.
        station: flightstate::config::StationClock::new(Some(chrono_tz::UTC)),
        day_boundary: chrono::NaiveTime::MIN,
        actions: None,
        tls: None,
    }
}

/// A running API of the test's own, stopped when dropped.
pub struct TestApi {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    running: Option<Running>,
}

impl TestApi {
    #[track_caller]
    pub fn start<S: Store + Clone>(
        store: S,
        mailbox: Option<Arc<Mailbox>>,
        settings: ApiSettings,
    ) -> TestApi {
        let stop = Arc::new(AtomicBool::new(false));
        let running = api::start(
            Api {
                store,
                mailbox,
                settings,
            },
            "127.0.0.1:0",
            2,
            Arc::clone(&stop),
        )
        .expect("start the API");
        TestApi {
            addr: running.addr(),
            stop,
            running: Some(running),
        }
    }
}

impl Drop for TestApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(running) = self.running.take() {
            running.join();
        }
    }
}

/// The time the read API tests apply at.
pub fn now() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2025, 6, 1)
        .and_then(|d| d.and_hms_opt(12, 0, 0))
        .expect("valid")
}

/// The operation day [`applied_day`] generates.
pub const DAY: &str = "2025-06-01";

/// A database holding a generated day of `flights` flights, every event
/// applied, and one DEAD message (id 9999, not well-formed XML).
pub fn applied_day(flights: usize) -> (TestDatabase, PgStore) {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    for (i, body) in crate::common::sis::day_messages(flights).iter().enumerate() {
        let id = i64::try_from(i).expect("small") + 1;
        let applied = apply_message(&store, &Rules::default(), id, body, now()).expect("applied");
        assert!(
            matches!(applied, Applied::Snapshot(_) | Applied::Flights(_)),
            "{applied:?}"
        );
    }
    let dead = apply_message(
        &store,
        &Rules::default(),
        9_999,
        b"<MSG><META>not well formed",
        now(),
    )
    .expect("recorded");
    assert!(matches!(dead, Applied::Dead { .. }), "{dead:?}");
    (db, store)
}
