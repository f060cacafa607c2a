//! `flightstate cleanup` as an operator runs it (the binary of this test
//! run) against real PostgreSQL: `--dry-run` names what it would remove and
//! changes nothing; the clean-up prints what it removed and reports its
//! progress on stderr — plain `removed N of M` lines into a pipe, a bar on a
//! terminal.
#![cfg(feature = "postgres")]

mod common;

use std::process::{Command, Output};

use common::TestDatabase;
use common::child::{BIN, on_a_terminal_draws_a_full_bar};
use common::sis::{at, dump_database, flop, parse_options};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::store::pg::PgStore;

/// A database holding `count` flights created by one event in September and
/// never given a day: all due for the clean-up (the clock says December),
/// as is the event's processing record.
fn database_with_stale_flights(count: i64) -> TestDatabase {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let settings = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    let bodies: Vec<(i64, String)> = (1..=count)
        .map(|flid| (flid, format!("<RENO>B{flid}</RENO>")))
        .collect();
    let bodies: Vec<(i64, &str)> = bodies.iter().map(|(f, b)| (*f, b.as_str())).collect();
    let applied =
        apply_message(&store, &settings, 1, &flop("RENO", &bodies), at(10, 8, 0)).expect("applied");
    assert!(matches!(applied, Applied::Flights(_)), "{applied:?}");
    db
}

fn cleanup(db: &TestDatabase, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(["--config", "/nonexistent/flightstate.toml", "cleanup"])
        .args(args)
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_CLEANUP_BATCH", "3")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run flightstate cleanup")
}

#[test]
fn a_dry_run_names_what_it_would_remove_and_the_clean_up_reports_progress_into_a_pipe() {
    let db = database_with_stale_flights(20);
    let mut conn = db.connect();
    let before = dump_database(&mut conn);
    let dry = cleanup(&db, &["--dry-run"]);
    let stdout = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    let flids: Vec<String> = (1..=20).map(|f: i64| f.to_string()).collect();
    assert!(
        stdout.starts_with(&format!(
            "would remove 20 flights without operation day: {}\n",
            flids.join(", ")
        )),
        "{stdout}"
    );
    assert!(dry.stderr.is_empty(), "a dry run draws no progress");
    assert_eq!(
        dump_database(&mut conn),
        before,
        "a dry run changed something"
    );

    let done = cleanup(&db, &[]);
    let stdout = String::from_utf8_lossy(&done.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
    assert!(done.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("removed 20 flights without operation day: 1, 2,"),
        "{stdout}"
    );
    assert_eq!(common::sis::count(&mut conn, "flight_schd", "true"), 0);
    // 20 flights and the record of the message that made them (SUCCEEDED in
    // September, no journaled call): one plain line per tenth of 21.
    assert!(
        stdout.ends_with("removed 1 processing records\nremoved 0 recorded operator actions\n"),
        "{stdout}"
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("removed "))
        .collect();
    assert_eq!(lines.len(), 10, "{stderr}");
    assert_eq!(lines[9], "removed 21 of 21");
    assert!(
        !stderr.contains('\r') && !stderr.contains('\u{1b}'),
        "no bar and no colour into a pipe: {stderr:?}"
    );

    let again = cleanup(&db, &["--json"]);
    assert!(again.status.success());
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).expect("JSON");
    assert_eq!(report["flights"], serde_json::json!([]));
    assert_eq!(report["dry_run"], serde_json::json!(false));
}

#[test]
fn the_clean_up_on_a_terminal_draws_a_bar() {
    let db = database_with_stale_flights(4);
    // 4 flights and 1 processing record.
    on_a_terminal_draws_a_full_bar(db.url(), "cleanup", "removed", 5);
}

/// The operator's record is kept `cleanup.action_days` and then removed:
/// of two actions, the one taken 401 days ago goes, the one taken today
/// stays.
#[test]
fn the_clean_up_removes_operator_actions_older_than_their_retention() {
    use flightstate::store::{ActionOps, NewAction, Store};
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let now = chrono::Utc::now().naive_utc();
    let action = |days_ago: i64, by: &'static str| NewAction {
        taken_at: now - chrono::Duration::days(days_ago),
        taken_by: by,
        via: "CLI",
        action: "REQUEUE",
        message_id: Some(7),
        operation_day: None,
        flid: None,
        result: "NOT_DEAD",
        detail: "not requeued: it is SUCCEEDED, not DEAD",
    };
    store
        .transaction(|tx| {
            tx.insert_operator_action(&action(401, "old-hand"))?;
            tx.insert_operator_action(&action(0, "new-hand"))
        })
        .expect("two actions recorded");

    let dry = cleanup(&db, &["--dry-run"]);
    let stdout = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert!(
        stdout.ends_with("would remove 1 recorded operator actions\n"),
        "{stdout}"
    );
    let done = cleanup(&db, &["--json"]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&done.stdout).expect("JSON");
    assert_eq!(report["actions"], 1);
    let kept = common::operator::operator_actions(&mut db.connect());
    let kept: Vec<&str> = kept.iter().map(|a| a.0.as_str()).collect();
    assert_eq!(kept, ["new-hand"]);
}
