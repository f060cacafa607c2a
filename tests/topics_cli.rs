//! `flightstate topics` against the tansu broker: on topics a dispatcher
//! filled with a generated day, it prints what a consumer of its own reads
//! there (messages per kind, keys by their latest kind), topic by topic; on
//! a broker that does not answer it fails, and says which topic it could not
//! read.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;

use std::collections::{BTreeMap, HashMap};
use std::process::{Command, Output};

use common::operator::{printed, stdout_of};
use dispatching::{Record, drain, outbox_of_a_day, read_all, tansu, tansu_dispatcher};

/// `flightstate topics` on `brokers` and `topics`; no state database or
/// mailbox is read.
fn topics_command(brokers: &str, (state, change): &(String, String)) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "topics",
            "--timeout-secs",
            "60",
        ])
        .env("FLIGHTSTATE_KAFKA_BROKERS", brokers)
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", state)
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", change)
        .env("RUST_LOG", "warn")
        .env("NO_COLOR", "1")
        .env_remove("FLIGHTSTATE_FAILPOINTS")
        .output()
        .expect("run flightstate topics")
}

/// The line `flightstate topics` owes `topic`, from the records the tests'
/// own reader found there.
fn expected_line(topic: &str, records: &[Record]) -> String {
    let kind = |r: &Record| r.kind.clone().unwrap_or_else(|| "?".to_owned());
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut latest: HashMap<&str, String> = HashMap::new();
    for record in records {
        *by_kind.entry(kind(record)).or_default() += 1;
        if let Some(key) = &record.key {
            latest.insert(key, kind(record));
        }
    }
    let mut by_latest: BTreeMap<&str, usize> = BTreeMap::new();
    for k in latest.values() {
        *by_latest.entry(k).or_default() += 1;
    }
    let list = |m: Vec<(&str, usize)>| {
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{topic}: {} messages ({}); {} keys, by latest kind: {}",
        records.len(),
        list(by_kind.iter().map(|(k, n)| (k.as_str(), *n)).collect()),
        latest.len(),
        list(by_latest.into_iter().collect())
    )
}

#[test]
fn topics_prints_what_each_topic_holds() {
    let (db, store) = outbox_of_a_day(6);
    let (mut dispatcher, topics) = tansu_dispatcher(store, "topics-cli");
    let report = drain(&mut dispatcher);
    assert!(report.state.produced > 0, "{report:?}");
    let state = read_all(&tansu(), &topics.0);
    let change = read_all(&tansu(), &topics.1);
    assert_eq!(state.len(), report.state.produced, "{report:?}");
    assert_eq!(change.len(), report.change.produced, "{report:?}");
    // Every flight of the day has its state record: one key each.
    let flights = dispatching::stored(
        &flightstate::store::pg::PgStore::from_pool(db.pool()),
        &mut db.connect(),
    )
    .len();
    assert!(flights > 0);

    let out = stdout_of(&topics_command(&tansu(), &topics), 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        vec![
            expected_line(&topics.0, &state).as_str(),
            expected_line(&topics.1, &change).as_str(),
        ],
        "{out}"
    );
    assert!(
        lines[0].contains(&format!("; {flights} keys,")),
        "one key per flight ({flights}): {out}"
    );
}

#[test]
fn topics_fails_on_a_broker_that_does_not_answer() {
    // Nothing listens on port 1.
    let topics = dispatching::topics("topics-cli-gone");
    let out = topics_command("127.0.0.1:1", &topics);
    assert_ne!(out.status.code(), Some(0), "{}", printed(&out));
    assert!(
        printed(&out).contains(&format!("cannot read the metadata of topic `{}`", topics.0)),
        "{}",
        printed(&out)
    );
}
