//! `flightstate replay` against real PostgreSQL and MariaDB: a snapshot
//! already applied is applied again only with an explicit day and version
//! policy; without one, or against its policy, it is refused and nothing
//! changes; its dry run prints what the replay then does, and changes
//! nothing; the replay is recorded on the message's PROC_STATE row.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/requesting/mod.rs"]
mod requesting;

use std::process::Output;

use common::TestDatabase;
use common::operator::{operator_command, stdout_of};
use common::sis::{at, count, dump_database, flight, flop, reno, sep, site_settings, snapshot};
use diesel::sql_types::{BigInt, Date, Nullable, Text, Timestamp};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use pumping::pg::pump_until_idle;
use pumping::{MailboxDatabase, proc_states};

/// The three messages of [`a_day_with_two_snapshots_and_an_event`].
struct Day {
    db: TestDatabase,
    mb: MailboxDatabase,
    /// 9 September: flights 1, 2, 3 at 08:00.
    first: i64,
    /// 9 September: flights 1, 2 (moved to 10:00), 4; flight 3 deleted.
    second: i64,
    /// Flight 1 renumbered to B0777.
    event: i64,
}

/// Two snapshots of 9 September and a flight event after them, pumped.
fn a_day_with_two_snapshots_and_an_event(tag: &str) -> Day {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let first = mb.insert(&snapshot(
        sep(9),
        (1..=3).map(|f| flight(f, at(9, 8, 0))).collect(),
    ));
    let second = mb.insert(&snapshot(
        sep(9),
        vec![
            flight(1, at(9, 8, 0)),
            flight(2, at(9, 10, 0)),
            flight(4, at(9, 8, 0)),
        ],
    ));
    let event = mb.insert(&flop("RENO", &[(1, "<RENO>B0777</RENO>")]));
    pump_until_idle(db.url(), &mb, site_settings(), tag);
    Day {
        db,
        mb,
        first,
        second,
        event,
    }
}

/// `flightstate replay ARGS…` (the binary of this test run) on the day's
/// databases, as operator `$USER=night-shift`.
fn replay(day: &Day, args: &[&str]) -> Output {
    operator_command("replay", day.db.url(), &day.mb.url())
        .args(args)
        .output()
        .expect("run flightstate replay")
}

/// Stderr of `output`, which must have exited with `code` and printed
/// nothing on stdout.
#[track_caller]
fn refusal_of(output: &Output, code: i32) -> String {
    assert_eq!(stdout_of(output, code), "", "a refusal prints no plan");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The plan lines (`  created 1: 3`, …) of a replay's output.
fn plan_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("  ")).collect()
}

#[derive(QueryableByName, Debug)]
struct Replayed {
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = BigInt)]
    replay_count: i64,
    #[diesel(sql_type = Nullable<Text>)]
    replayed_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamp>)]
    replayed_at: Option<chrono::NaiveDateTime>,
    #[diesel(sql_type = Nullable<Text>)]
    replay_policy: Option<String>,
}

fn replayed(conn: &mut PgConnection, id: i64) -> Replayed {
    diesel::sql_query(
        "SELECT status, replay_count::bigint AS replay_count, replayed_by, replayed_at, \
         replay_policy FROM proc_state WHERE message_id = $1",
    )
    .bind::<BigInt, _>(id)
    .get_result(conn)
    .expect("the message's PROC_STATE row")
}

#[derive(QueryableByName, Debug, PartialEq, Eq)]
struct Ledger {
    #[diesel(sql_type = BigInt)]
    version: i64,
    #[diesel(sql_type = BigInt)]
    last_message_id: i64,
}

fn ledger(conn: &mut PgConnection) -> Ledger {
    diesel::sql_query("SELECT version, last_message_id FROM schd_gen WHERE operation_day = $1")
        .bind::<Date, _>(sep(9))
        .get_result(conn)
        .expect("the day's ledger")
}

#[derive(QueryableByName)]
struct Flid {
    #[diesel(sql_type = BigInt)]
    flid: i64,
}

/// The FLIDs `query` (test-only SQL) returns.
fn flids(conn: &mut PgConnection, query: &str) -> Vec<i64> {
    diesel::sql_query(query)
        .load::<Flid>(conn)
        .expect("read FLIDs")
        .into_iter()
        .map(|r| r.flid)
        .collect()
}

#[test]
fn a_replay_without_its_policy_or_against_it_is_refused_and_changes_nothing() {
    let day = a_day_with_two_snapshots_and_an_event("replay_refused");
    let mut conn = day.db.connect();
    let before = dump_database(&mut conn);
    let first = day.first.to_string();

    for without in [
        &[first.as_str()][..],
        &[&first, "--day", "2026-09-09"],
        &[&first, "--version", "force"],
        &[&first, "--version", "force", "--dry-run"],
    ] {
        let said = refusal_of(&replay(&day, without), 2);
        for words in [
            "needs an explicit policy",
            "--day YYYY-MM-DD",
            "--version latest|force",
        ] {
            assert!(
                said.contains(words),
                "{without:?}: `{words}` missing from {said}"
            );
        }
    }

    // A newer snapshot of the day stands under `--version latest`.
    let said = refusal_of(
        &replay(
            &day,
            &[&first, "--day", "2026-09-09", "--version", "latest"],
        ),
        1,
    );
    assert!(
        said.contains(&format!(
            "day 2026-09-09 has a newer snapshot than message {}: message {} (version 2)",
            day.first, day.second
        )) && said.contains("--version force"),
        "{said}"
    );
    // Another day than the message's only with `--other-day`.
    let said = refusal_of(
        &replay(&day, &[&first, "--day", "2026-09-10", "--version", "force"]),
        1,
    );
    assert!(
        said.contains("is a snapshot of 2026-09-09, not of 2026-09-10")
            && said.contains("--other-day"),
        "{said}"
    );
    // Only snapshots are replayed.
    let said = refusal_of(
        &replay(
            &day,
            &[
                &day.event.to_string(),
                "--day",
                "2026-09-09",
                "--version",
                "force",
            ],
        ),
        1,
    );
    assert!(said.contains("is FLOP/RENO: only snapshots"), "{said}");
    // A message the mailbox does not hold.
    let said = refusal_of(
        &replay(
            &day,
            &["999999", "--day", "2026-09-09", "--version", "force"],
        ),
        1,
    );
    assert!(said.contains("its mailbox row is gone"), "{said}");

    assert_eq!(dump_database(&mut conn), before, "nothing changed");
    assert_eq!(replayed(&mut conn, day.first).replay_count, 0);
}

#[test]
fn a_dry_run_prints_what_the_replay_then_does_and_changes_nothing() {
    let day = a_day_with_two_snapshots_and_an_event("replay_forced");
    let mut conn = day.db.connect();
    let first = day.first.to_string();
    let before = dump_database(&mut conn);
    let rows_before = day.mb.rows();
    let first_events = count(&mut conn, "kafka_schd", &format!("message_id = {first}"));
    assert_eq!(first_events, 3, "the first snapshot's own events");

    let dry = stdout_of(
        &replay(
            &day,
            &[
                &first,
                "--day",
                "2026-09-09",
                "--version",
                "force",
                "--dry-run",
            ],
        ),
        0,
    );
    assert!(
        dry.starts_with(&format!(
            "message {first} (SCHD/DNLD): a replay as 2026-09-09 would take the day's version 2 to 3, the day's latest snapshot was message {}; dry run, nothing changed\n",
            day.second
        )),
        "{dry}"
    );
    assert_eq!(
        plan_lines(&dry),
        [
            "  created 1: 3",
            "  updated 2: 1 2",
            "  unchanged 0:",
            "  deleted 1: 4"
        ],
        "{dry}"
    );
    assert_eq!(
        dump_database(&mut conn),
        before,
        "the dry run changed nothing"
    );

    let started = chrono::Utc::now().naive_utc() - chrono::Duration::seconds(1);
    let applied = stdout_of(
        &replay(
            &day,
            &[
                &first,
                "--day",
                "2026-09-09",
                "--version",
                "force",
                "--by",
                "alice",
            ],
        ),
        0,
    );
    assert!(
        applied.starts_with(&format!(
            "message {first} (SCHD/DNLD) replayed as 2026-09-09 by alice (day=2026-09-09 version=force): the day's version 2 to 3"
        )),
        "{applied}"
    );
    assert_eq!(
        plan_lines(&applied),
        plan_lines(&dry),
        "the dry run's plan is what happened"
    );

    // The day is the first snapshot's again.
    assert_eq!(
        flids(&mut conn, "SELECT flid FROM flight_schd ORDER BY flid"),
        [1, 2, 3]
    );
    assert_eq!(
        flids(
            &mut conn,
            "SELECT flid FROM schd_gen_flid WHERE operation_day = DATE '2026-09-09' ORDER BY flid"
        ),
        [1, 2, 3]
    );
    assert_eq!(
        reno(&mut conn, 1).as_deref(),
        Some("B0001"),
        "the event's RENO is gone"
    );
    assert_eq!(
        ledger(&mut conn),
        Ledger {
            version: 3,
            last_message_id: day.first
        }
    );
    // Its events: flights 1, 2 and 3 in state, 4 a tombstone, and the snapshot notice.
    assert_eq!(
        flids(
            &mut conn,
            &format!(
                "SELECT flid FROM (SELECT flid FROM kafka_schd WHERE message_id = {first} \
                 AND event_kind = 'STATE' ORDER BY event_id OFFSET 3) t ORDER BY flid"
            )
        ),
        [1, 2, 3]
    );
    assert_eq!(
        flids(
            &mut conn,
            &format!(
                "SELECT flid FROM kafka_schd WHERE message_id = {first} AND event_kind = 'TOMBSTONE'"
            )
        ),
        [4]
    );
    assert_eq!(
        count(
            &mut conn,
            "kafka_msg",
            &format!("message_id = {first} AND change_kind = 'SNAPSHOT'")
        ),
        2
    );
    // The operator's action on the message's record; the mailbox untouched.
    let record = replayed(&mut conn, day.first);
    assert_eq!(record.status, "SUCCEEDED");
    assert_eq!(record.replay_count, 1);
    assert_eq!(record.replayed_by.as_deref(), Some("alice"));
    assert_eq!(
        record.replay_policy.as_deref(),
        Some("day=2026-09-09 version=force")
    );
    assert!(
        record.replayed_at.is_some_and(|t| t >= started),
        "{record:?}"
    );
    assert_eq!(day.mb.rows(), rows_before, "a replay writes nothing back");
    assert_eq!(
        proc_states(&mut conn)
            .into_iter()
            .map(|(id, status, ..)| (id, status))
            .collect::<Vec<_>>(),
        [day.first, day.second, day.event].map(|id| (id, "SUCCEEDED".to_owned())),
    );
}

#[test]
fn the_days_latest_snapshot_is_replayed_under_latest_and_several_show_progress() {
    let day = a_day_with_two_snapshots_and_an_event("replay_latest");
    let mut conn = day.db.connect();
    let (first, second) = (day.first.to_string(), day.second.to_string());

    // The day's latest snapshot restores the flight the event changed.
    let applied = stdout_of(
        &replay(
            &day,
            &[&second, "--day", "2026-09-09", "--version", "latest"],
        ),
        0,
    );
    assert_eq!(
        plan_lines(&applied),
        [
            "  created 0:",
            "  updated 1: 1",
            "  unchanged 2: 2 4",
            "  deleted 0:"
        ],
        "{applied}"
    );
    assert_eq!(reno(&mut conn, 1).as_deref(), Some("B0001"));
    assert_eq!(
        ledger(&mut conn),
        Ledger {
            version: 3,
            last_message_id: day.second
        }
    );
    assert_eq!(
        replayed(&mut conn, day.second).replayed_by.as_deref(),
        Some("night-shift")
    );

    // Several, in the order given, with progress lines on a pipe.
    let both = replay(
        &day,
        &[&first, &second, "--day", "2026-09-09", "--version", "force"],
    );
    let out = stdout_of(&both, 0);
    assert_eq!(out.matches(" replayed as 2026-09-09 ").count(), 2, "{out}");
    let err = String::from_utf8_lossy(&both.stderr);
    assert!(
        err.contains("replayed 1 of 2\n") && err.contains("replayed 2 of 2\n"),
        "{err}"
    );
    assert_eq!(
        ledger(&mut conn),
        Ledger {
            version: 5,
            last_message_id: day.second
        }
    );
    assert_eq!(
        flids(&mut conn, "SELECT flid FROM flight_schd ORDER BY flid"),
        [1, 2, 4]
    );
    assert_eq!(replayed(&mut conn, day.first).replay_count, 1);
    assert_eq!(replayed(&mut conn, day.second).replay_count, 2);

    // The pump has nothing to do again.
    let before = dump_database(&mut conn);
    pump_until_idle(day.db.url(), &day.mb, site_settings(), "replay_latest");
    assert_eq!(dump_database(&mut conn), before);
}

#[test]
fn a_replay_waits_for_the_pipeline_lock_like_the_pump() {
    use diesel::Connection;
    use diesel::connection::SimpleConnection;

    let day = a_day_with_two_snapshots_and_an_event("replay_locked");
    let mut holder = day.db.connect();
    let mut conn = day.db.connect();
    let second = day.second.to_string();
    // Another state transaction (a pump's) holds PIPELINE_LOCK.
    let (replay_out, waited) = holder
        .transaction::<_, diesel::result::Error, _>(|holder| {
            holder.batch_execute("SELECT 1 FROM pipeline_lock WHERE lock_id = 1 FOR UPDATE")?;
            let mut child = operator_command("replay", day.db.url(), &day.mb.url())
                .args([&second, "--day", "2026-09-09", "--version", "latest"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("start flightstate replay");
            // The server shows the replay's statement waiting for the lock
            // (the holder's own session is not waiting).
            let mut watcher = day.db.connect();
            common::wait_until(
                std::time::Duration::from_secs(30),
                "the replay waits for PIPELINE_LOCK",
                || {
                    assert!(
                        child.try_wait().expect("poll the replay").is_none(),
                        "the replay ended while another transaction held PIPELINE_LOCK"
                    );
                    common::waits_for_a_lock(&mut watcher, day.db.name())
                },
            );
            // Still waiting: nothing of the replay is visible.
            let waited = ledger(&mut conn);
            Ok((child, waited))
        })
        .expect("hold PIPELINE_LOCK, then release it");
    assert_eq!(
        waited,
        Ledger {
            version: 2,
            last_message_id: day.second
        },
        "the replay did not get past the lock held by another transaction"
    );
    let output = replay_out.wait_with_output().expect("the replay ends");
    let applied = stdout_of(&output, 0);
    assert!(applied.contains("the day's version 2 to 3"), "{applied}");
    assert_eq!(
        ledger(&mut conn),
        Ledger {
            version: 3,
            last_message_id: day.second
        }
    );
}

#[test]
fn a_replayed_answer_takes_the_operators_day_and_completes_no_live_request() {
    use common::sis::schedule_message;
    use flightstate::protocol::{Field, ScheduleSubtype};
    use flightstate::store::RequestStatus;
    use requesting::{register, request, request_settings};

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("replay_resp");
    let store = pumping::pg::pg_store(db.url());
    let settings = request_settings();
    let asked = register(&store, &settings, sep(10));
    // The answer names no day and its flights fall in two: only the
    // request told its day.
    let answer = mb.insert(&schedule_message(
        ScheduleSubtype::Resp,
        None,
        Field::Value(2),
        vec![flight(101, at(10, 8, 0)), flight(102, at(11, 1, 30))],
    ));
    pump_until_idle(db.url(), &mb, site_settings(), "replay_resp");
    assert_eq!(
        request(&store, asked.req_id).completed_by_message_id,
        Some(answer)
    );
    // A new request of the day waits for its own answer.
    let live = register(&store, &settings, sep(10));
    let day = Day {
        db,
        mb,
        first: answer,
        second: answer,
        event: answer,
    };

    let applied = stdout_of(
        &replay(
            &day,
            &[
                &answer.to_string(),
                "--day",
                "2026-09-10",
                "--version",
                "latest",
            ],
        ),
        0,
    );
    assert!(
        applied.contains(&format!(
            "message {answer} (SCHD/RESP) replayed as 2026-09-10"
        )),
        "{applied}"
    );
    assert_eq!(
        plan_lines(&applied),
        [
            "  created 0:",
            "  updated 0:",
            "  unchanged 2: 101 102",
            "  deleted 0:"
        ]
    );
    let waiting = request(&store, live.req_id);
    assert_eq!(waiting.status, RequestStatus::Pending, "{waiting:?}");
    assert_eq!(waiting.completed_by_message_id, None);
    let mut conn = day.db.connect();
    assert_eq!(replayed(&mut conn, answer).replay_count, 1);
}
