//! `flightstate request` and `flightstate requests` as an operator runs
//! them (the binary of this test run) against real PostgreSQL and MariaDB:
//! the command registers and prints the id, writes nothing to the mailbox
//! itself; `pump --until-idle` makes the call; `requests` and `status`
//! show the request with its call.

use std::process::Command;
use std::time::Duration;

use crate::common::TestDatabase;
use crate::common::child::run_to_end;
use crate::common::operator::{cli_action, operator_actions};
use crate::pumping::{MailboxDatabase, pump_command};
use crate::requesting::coutmsgs;

/// Runs `flightstate ARGS` on the test's servers; returns its stdout.
#[track_caller]
fn flightstate(db: &TestDatabase, mb: &MailboxDatabase, args: &[&str]) -> String {
    flightstate_with(db, mb, args, &[])
}

/// [`flightstate`] with more environment variables.
#[track_caller]
fn flightstate_with(
    db: &TestDatabase,
    mb: &MailboxDatabase,
    args: &[&str],
    env: &[(&str, &str)],
) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args(["--config", "/nonexistent/flightstate.toml"])
        .args(args)
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_MAILBOX_URL", mb.url())
        .envs(env.iter().copied())
        .env_remove("FLIGHTSTATE_FAILPOINTS")
        .output()
        .expect("run flightstate");
    assert!(
        output.status.success(),
        "flightstate {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

#[test]
fn request_prints_its_id_and_the_pump_sends_it_and_requests_shows_the_call() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("req_cli");
    let printed = flightstate(
        &db,
        &mb,
        &["request", "--day", "2026-09-25", "--by", "carol"],
    );
    let req_id: i64 = printed.trim().parse().expect("the request id alone");
    let day = chrono::NaiveDate::from_ymd_opt(2026, 9, 25);
    assert_eq!(
        operator_actions(&mut db.connect()),
        vec![cli_action("carol", "REQUEST_DAY", None, day, "REGISTERED")],
        "the request is recorded with who, how and the day"
    );
    assert!(
        coutmsgs(&mb).is_empty(),
        "the command writes nothing itself"
    );

    let listed: serde_json::Value =
        serde_json::from_str(&flightstate(&db, &mb, &["requests", "--json"])).expect("JSON");
    assert_eq!(listed[0]["req_id"], req_id);
    assert_eq!(listed[0]["status"], "PENDING");
    assert_eq!(listed[0]["operation_day"], "2026-09-25");
    assert_eq!(listed[0]["call_status"], "PENDING");

    let (status, said) = run_to_end(
        pump_command(db.url(), &mb),
        "req_cli",
        None,
        Duration::from_secs(120),
    );
    assert!(status.success(), "pump --until-idle: {said}");
    let rows = coutmsgs(&mb);
    assert_eq!(rows.len(), 1, "{rows:?}");

    let text = flightstate(&db, &mb, &["requests"]);
    assert!(
        text.contains(&format!(
            "{req_id}  RQFD 2026-09-25  PENDING  seqn 000001  call ACCEPTED (COUTMSGS {}, 1 attempts)",
            rows[0].id
        )),
        "{text}"
    );
    let status: serde_json::Value =
        serde_json::from_str(&flightstate(&db, &mb, &["status", "--json"])).expect("JSON");
    let shown = &status["state"]["requests"][0];
    assert_eq!(shown["req_id"], req_id);
    assert_eq!(shown["remote_ref"], rows[0].id.to_string());
    assert_eq!(shown["attempts"], 1);
    let action = &status["state"]["actions"][0];
    assert_eq!(action["taken_by"], "carol");
    assert_eq!(action["result"], "REGISTERED");
    assert_eq!(action["operation_day"], "2026-09-25");
    let text = flightstate(&db, &mb, &["status"]);
    assert!(
        text.contains(&format!(
            " carol (CLI)  REQUEST_DAY day 2026-09-25  REGISTERED: request {req_id} (SEQN 000001) for 2026-09-25\n"
        )),
        "{text}"
    );
}

#[test]
fn a_bad_day_is_refused_before_anything_is_registered() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("req_cli_bad");
    let output = Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args(["--config", "/nonexistent/flightstate.toml"])
        .args(["request", "--day", "2026-02-30"])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .output()
        .expect("run flightstate");
    assert_eq!(output.status.code(), Some(2), "clap refuses the value");
    let listed: serde_json::Value =
        serde_json::from_str(&flightstate(&db, &mb, &["requests", "--json"])).expect("JSON");
    assert_eq!(listed, serde_json::json!([]));
}

/// The RQFD's DTTM is the station's wall clock (`station.time_zone`), not
/// the process's: a host on UTC asks in Shanghai time.
#[test]
fn the_request_is_dated_by_the_station_zone_on_a_utc_host() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("req_cli_zone");
    let before = chrono::Utc::now().naive_utc();
    flightstate_with(
        &db,
        &mb,
        &["request", "--day", "2026-09-25"],
        &[
            ("FLIGHTSTATE_STATION_TIME_ZONE", "Asia/Shanghai"),
            ("TZ", "UTC"),
        ],
    );
    let after = chrono::Utc::now().naive_utc();
    let (status, said) = run_to_end(
        pump_command(db.url(), &mb),
        "req_cli_zone",
        None,
        Duration::from_secs(120),
    );
    assert!(status.success(), "pump --until-idle: {said}");
    let rows = coutmsgs(&mb);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let dttm = crate::requesting::element_text(&rows[0].message, "DTTM");
    let dttm = chrono::NaiveDateTime::parse_from_str(&dttm, "%Y%m%d%H%M%S").expect("DTTM");
    let shanghai = chrono::Duration::hours(8);
    let earliest = before + shanghai - chrono::Duration::seconds(1);
    let latest = after + shanghai + chrono::Duration::seconds(1);
    assert!(
        earliest <= dttm && dttm <= latest,
        "DTTM {dttm} is Shanghai time, between {earliest} and {latest}"
    );
}
