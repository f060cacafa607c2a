//! The pump as a child process (`flightstate pump --until-idle`, built with
//! the features of this test run) against real MariaDB and PostgreSQL:
//!
//! - order: a mixed stream is applied in mailbox id order, and the final
//!   state equals `flightstate apply` of the same files in that order;
//! - the crash matrix: for every named failpoint of the pump's side the
//!   pump is killed there (SIGKILL, proven by the signal and the marker
//!   line it writes first) in the middle of a stream that covers a streamed
//!   snapshot (and its parts before commit), a snapshot with deletes, group
//!   commits, ADFT, SCHD DEL, DEAD and unsupported messages, write-backs
//!   and re-sent rows; it is restarted, and the final state, `PROC_STATE`,
//!   the mailbox statuses and the journal equal a run without a crash;
//!   every mailbox row is written back exactly once per delivery.
#![cfg(feature = "failpoints")]

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::OnceLock;
use std::time::Duration;

use flightstate::pipeline::STREAM_FROM_BYTES;
use flightstate::protocol::{Body, Field, ScheduleSubtype, to_xml};
use flightstate::synth::{DayOptions, airport_day};
use mysql::prelude::Queryable;

use crate::common::TestDatabase;
use crate::common::child::{BIN, run_to_end};
use crate::common::sis::schedule_message;
use crate::pumping::{
    GeneralLog, MailboxDatabase, effect_calls, proc_states, pump_command, state_dump,
};

/// The stream, in two halves (the rows of the first are re-sent before the
/// second is queued): a 600-flight snapshot (over 1 MiB: streamed by
/// parts), events of the day with its ad-hoc flights (group commits), a
/// malformed message, an unsupported one in each half (the second read
/// alone), a SCHD DEL, and the same day again without its last flights
/// (deletes).
fn stream() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let day = airport_day(&DayOptions::default());
    let snapshot = to_xml(&day.snapshot).into_bytes();
    assert!(
        snapshot.len() > STREAM_FROM_BYTES,
        "the snapshot is streamed"
    );
    let events: Vec<Vec<u8>> = day
        .events
        .iter()
        .enumerate()
        .filter(|(i, m)| (*i < 30 || *i % 97 == 0) && m.meta.styp != "ADFT")
        .map(|(_, m)| to_xml(m).into_bytes())
        .collect();
    let (early, late) = events.split_at(events.len() / 2);
    // The ad-hoc flights come in the second half, where the pump is killed.
    let adhoc = day
        .events
        .iter()
        .filter(|m| m.meta.styp == "ADFT")
        .map(|m| to_xml(m).into_bytes());
    let Body::Schedule(schedule) = &day.snapshot.body else {
        panic!("a snapshot");
    };
    let deleted = schedule_message(
        ScheduleSubtype::Del,
        None,
        Field::Value(1),
        vec![schedule.flights[10].clone()],
    );
    let mut shorter = day.snapshot.clone();
    if let Body::Schedule(s) = &mut shorter.body {
        s.flights.truncate(s.flights.len() - 3);
        s.recs = Field::Value(u32::try_from(s.flights.len()).expect("a day"));
    }
    let mut first = vec![snapshot];
    first.extend_from_slice(early);
    first.push(b"<MSG><META><TYPE>FLOP</TYPE>".to_vec());
    first.push(unsupported(1));
    let mut second = vec![deleted];
    second.extend_from_slice(late);
    // Read whole and alone (no group takes it, no stream): the single
    // message's path.
    second.push(unsupported(2));
    second.extend(adhoc);
    second.push(to_xml(&shorter).into_bytes());
    (first, second)
}

/// A well-formed message of a type flightstate does not handle.
fn unsupported(seqn: u32) -> Vec<u8> {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><MSG><META><SNDR>AODB</SNDR><SEQN>{seqn}</SEQN>\
<DTTM>20250601030000</DTTM><TYPE>AIRL</TYPE><STYP>DNLD</STYP></META><AIRL><X>1</X></AIRL></MSG>"
    )
    .into_bytes()
}

/// The rows of the first half that are re-sent: the snapshot and an event.
const RESENT: [i64; 2] = [1, 2];

/// Runs `flightstate pump --until-idle` to its end (at most 180 s); returns
/// how it ended and what it wrote on stderr.
fn pump(db: &TestDatabase, mb: &MailboxDatabase, failpoint: Option<&str>) -> (ExitStatus, String) {
    let mut command = pump_command(db.url(), mb);
    command
        .env("FLIGHTSTATE_PUMP_UNSUPPORTED_THRESHOLD", "2")
        // Small batches, so that a crash falls between batches too.
        .env("FLIGHTSTATE_PUMP_HEAD_BATCH", "7")
        .env("FLIGHTSTATE_PUMP_EFFECT_BATCH", "3")
        .env("FLIGHTSTATE_PUMP_GROUP_COMMIT", "4");
    run_to_end(command, &mb.name, failpoint, Duration::from_secs(180))
}

/// Sets rows back to pending, as a re-send by AODB or an operator does.
fn resend(mb: &MailboxDatabase, ids: &[i64]) {
    let mut conn = mb.conn();
    for id in ids {
        conn.exec_drop(
            "UPDATE cminmsgs SET CMINMSGS_STATUS = 'VALID', CMINMSGS_DATE_PROCESSED = NULL \
             WHERE CMINMSGS_ID = ?",
            (id,),
        )
        .expect("re-send a row");
    }
}

/// Runs the stream: the first half to its end, its re-sent rows and the
/// second half with `failpoint` armed (killing the pump there), then a
/// restarted pump to the end.
fn run_stream(db: &TestDatabase, mb: &MailboxDatabase, failpoint: Option<&str>) {
    let (first, second) = stream();
    for m in &first {
        mb.insert(m);
    }
    let (first_run, said) = pump(db, mb, None);
    assert!(first_run.success(), "the first half: {said}");
    let pending: Vec<i64> = mb.rows().iter().filter(|r| !r.2).map(|r| r.0).collect();
    assert!(
        pending.is_empty(),
        "pump --until-idle returned with rows pending: {pending:?}\n{said}"
    );
    resend(mb, &RESENT);
    for m in &second {
        mb.insert(m);
    }
    let (status, said) = pump(db, mb, failpoint);
    println!("the pump said:\n{said}");
    match failpoint {
        None => assert!(status.success(), "the second half: {status}\n{said}"),
        Some(point) => {
            assert_eq!(
                status.signal(),
                Some(libc::SIGKILL),
                "killed at `{point}`: {status}\n{said}"
            );
            assert!(
                said.contains(&format!("failpoint `{point}`: killed")),
                "the pump died at `{point}` and nowhere else: {said}"
            );
            let (restarted, said) = pump(db, mb, None);
            assert!(restarted.success(), "the restarted pump: {said}");
            // Shown when the test fails.
            println!("the restarted pump said:\n{said}");
        }
    }
}

/// The outcome of a run: the state dump, the journal and the mailbox.
#[derive(Debug, PartialEq)]
struct Outcome {
    state: String,
    calls: Vec<(String, String)>,
    mailbox: Vec<(i64, Option<String>, bool)>,
}

fn outcome(db: &TestDatabase, mb: &MailboxDatabase) -> Outcome {
    let mut conn = db.connect();
    Outcome {
        state: state_dump(&mut conn),
        // The attempt differs when a crash made a write-back go round
        // again; the status may not.
        calls: effect_calls(&mut conn)
            .into_iter()
            .map(|(target, status, _)| (target, status))
            .collect(),
        mailbox: mb.rows(),
    }
}

/// The outcome of the stream without a crash, computed once per process.
fn uninterrupted() -> &'static Outcome {
    static EXPECTED: OnceLock<Outcome> = OnceLock::new();
    EXPECTED.get_or_init(|| {
        let db = TestDatabase::migrated();
        let mb = MailboxDatabase::create("crash_ref");
        run_stream(&db, &mb, None);
        outcome(&db, &mb)
    })
}

#[test]
fn the_pump_applies_in_id_order_like_flightstate_apply() {
    let (first, second) = stream();
    let messages: Vec<Vec<u8>> = first.into_iter().chain(second).collect();
    let pumped = {
        let db = TestDatabase::migrated();
        let mb = MailboxDatabase::create("order");
        for m in &messages {
            mb.insert(m);
        }
        let (status, said) = pump(&db, &mb, None);
        assert!(status.success(), "{said}");
        mb.assert_each_written_back_once();
        outcome(&db, &mb)
    };

    let db = TestDatabase::migrated();
    let dir = std::env::temp_dir().join(format!("fs_pump_order_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (i, body) in messages.iter().enumerate() {
        let file = dir.join(format!("{:04}.xml", i + 1));
        std::fs::write(&file, body).expect("write a message file");
        let status = Command::new(BIN)
            .args(["--config", "/nonexistent/flightstate.toml", "apply"])
            .arg(&file)
            .args(["--message-id", &(i + 1).to_string()])
            .env("FLIGHTSTATE_DATABASE_URL", db.url())
            .env("RUST_LOG", "error")
            .output()
            .expect("run flightstate apply");
        assert!(
            matches!(status.status.code(), Some(0 | 65)),
            "apply {}: {}",
            file.display(),
            String::from_utf8_lossy(&status.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(Path::new(&dir));
    let mut conn = db.connect();
    let applied = state_dump(&mut conn);

    // PROC_STATE differs only where the pump's policy goes further than one
    // apply: an unsupported message is FAILED(UNSUPPORTED) after one apply,
    // DEAD once the pump reaches its threshold.
    let without_proc_state = |dump: &str| -> String {
        dump.lines()
            .filter(|l| !l.starts_with("proc_state:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        without_proc_state(&pumped.state),
        without_proc_state(&applied),
        "the pump's state equals flightstate apply in id order"
    );
    let mut pump_db_states = Vec::new();
    for line in pumped
        .state
        .lines()
        .filter(|l| l.starts_with("proc_state:"))
    {
        pump_db_states.push(line.to_owned());
    }
    let apply_states = proc_states(&mut conn);
    assert_eq!(apply_states.len(), messages.len());
    for (id, status, kind, _) in &apply_states {
        let in_pump = pump_db_states
            .iter()
            .any(|l| l.contains(&format!("\"message_id\": {id},")));
        assert!(in_pump, "message {id} has a PROC_STATE row in the pump run");
        if status == "FAILED" {
            assert_eq!(kind.as_deref(), Some("UNSUPPORTED"), "message {id}");
        }
    }
}

fn crash_and_restart(point: &str, tag: &str) {
    let expected = uninterrupted();
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let log = GeneralLog::on();
    run_stream(&db, &mb, Some(point));
    assert_written_back_once_per_delivery(&mb, point);
    drop(log);
    assert_each_call_sent_once(&db, point);

    let got = outcome(&db, &mb);
    assert_eq!(got.mailbox.len(), expected.mailbox.len());
    let rows_differing: Vec<_> = got
        .mailbox
        .iter()
        .zip(&expected.mailbox)
        .filter(|(g, e)| (&g.1, g.2) != (&e.1, e.2))
        .collect();
    if let Some(((id, _, _), _)) = rows_differing.first() {
        let target = format!("cminmsgs:{id}");
        let calls: Vec<_> = got.calls.iter().filter(|c| c.0 == target).collect();
        let states = proc_states(&mut db.connect());
        let state = states.iter().find(|s| s.0 == *id);
        panic!(
            "each row written back with the same status after `{point}`: {} rows differ, from {:?}; its calls {calls:?}, its PROC_STATE {state:?}",
            rows_differing.len(),
            rows_differing.first()
        );
    }
    assert_eq!(
        got.calls, expected.calls,
        "one settled write-back per delivery of a row"
    );
    // The dump holds PROC_STATE.ATTEMPTS: equal dumps mean no message was
    // applied (or recorded) twice.
    if let Some(difference) = first_difference(&got.state, &expected.state) {
        panic!("final state after `{point}` differs from a run without a crash: {difference}");
    }
}

/// Where two dumps first differ: the table and a stretch around the spot.
fn first_difference(got: &str, expected: &str) -> Option<String> {
    for (g, e) in got.lines().zip(expected.lines()) {
        if g != e {
            let at = g.bytes().zip(e.bytes()).take_while(|(a, b)| a == b).count();
            let from = at.saturating_sub(300);
            let table = g.split(':').next().unwrap_or_default();
            let cut = |s: &str| s.get(from..(at + 300).min(s.len())).unwrap_or(s).to_owned();
            return Some(format!("{table}:\n got …{}…\n want …{}…", cut(g), cut(e)));
        }
    }
    (got.lines().count() != expected.lines().count()).then(|| "the tables differ".to_owned())
}

/// Exactly once where it can fail: the write-back statements that reached
/// MariaDB, per row, equal the row's deliveries (two for a re-sent row),
/// whatever was killed where.
fn assert_written_back_once_per_delivery(mb: &MailboxDatabase, point: &str) {
    let sent = mb.write_back_statements();
    let rows = mb.rows();
    assert_eq!(
        sent.len(),
        rows.len(),
        "every row had its write-back: {sent:?}"
    );
    for (id, statements) in sent {
        let deliveries = if RESENT.contains(&id) { 2 } else { 1 };
        if point == "write_back.before_commit" && statements == deliveries + 1 {
            // The killed batch's UPDATEs reached the server inside a
            // transaction that never committed (rolled back with the
            // connection): made again after the restart, written once.
            continue;
        }
        assert_eq!(
            statements, deliveries,
            "row {id}: write-back statements that reached MariaDB after `{point}`"
        );
    }
}

/// The journal's side: a call is granted a second time only when the kill
/// left it dispatched but certainly not made (read back as NOT_SENT).
fn assert_each_call_sent_once(db: &TestDatabase, point: &str) {
    let calls = effect_calls(&mut db.connect());
    let again: Vec<_> = calls.iter().filter(|c| c.2 != 1).collect();
    if point == "journal.after_dispatch" {
        println!("granted again after `{point}`: {again:?}");
        // The kill comes at the first grant of the second half, made after
        // a head batch of 7 messages: a full effect batch of 3 calls, each
        // granted once more (attempt 2), and no other.
        assert!(
            again.iter().all(|c| c.2 == 2) && again.len() == 3,
            "the calls of the killed grant (a batch of 3), and only they, went round again: {again:?}"
        );
    } else if point == "write_back.before_commit" {
        // The killed batch was granted and its UPDATEs rolled back with the
        // connection: read back pending (NOT_SENT), its calls, and only
        // they, are granted once more.
        assert!(
            !again.is_empty() && again.iter().all(|c| c.2 == 2),
            "the calls of the killed write-back went round once more: {again:?}"
        );
    } else {
        assert!(
            again.is_empty(),
            "no call granted twice after `{point}`: {again:?}"
        );
    }
}

/// The failpoints of the dispatcher's crash cases, read from
/// `tests/dispatch/crash.rs` itself: the point each of its `#[test]`
/// functions kills at (`crash_at("…", …)`), one entry per test, so that a
/// case deleted there is a place left untested here.
fn dispatch_crash_cases() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dispatch/crash.rs");
    let text = std::fs::read_to_string(&path).expect("read the dispatcher's crash test");
    // The text of each test: from its `#[test]` line to the next one.
    let mut cases: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.trim() == "#[test]" {
            cases.push(String::new());
        } else if let Some(case) = cases.last_mut() {
            case.push_str(line);
            case.push('\n');
        }
    }
    let marker = "crash_at(\"";
    cases
        .iter()
        .map(|case| {
            let point = case.find(marker).and_then(|at| {
                let rest = &case[at + marker.len()..];
                rest.find('"').map(|end| rest[..end].to_owned())
            });
            point.unwrap_or_else(|| {
                panic!(
                    "a test of {} is not a crash case at a failpoint: {case}",
                    path.display()
                )
            })
        })
        .collect()
}

/// One test per failpoint of the pump's side.
macro_rules! crash_matrix {
    ($($name:ident => $point:literal,)*) => {
        $(
            #[test]
            fn $name() {
                crash_and_restart($point, stringify!($name));
            }
        )*

        /// Every place of a failpoint in the sources has its crash case
        /// (here or in the dispatcher's crash test): a point is named once,
        /// so that arming it kills at that place and no other, and a new
        /// place cannot go untested, nor reuse a name that is tested
        /// elsewhere.
        #[test]
        fn every_failpoint_place_has_a_crash_case() {
            let mut covered: Vec<String> = vec![$($point.to_owned(),)*];
            covered.extend(dispatch_crash_cases());
            covered.sort_unstable();
            assert_eq!(failpoints_in_sources(), covered);
        }
    };
}

crash_matrix! {
    c_before_parse => "apply.before_parse",
    c_after_parse => "apply.after_parse",
    c_group_after_parse => "group.after_parse",
    c_snapshot_after_parse => "snapshot.after_parse",
    c_event_before_write => "event.before_write",
    c_adft_before_write => "adft.before_write",
    c_snapshot_after_part => "snapshot.after_part",
    c_snapshot_after_deletes => "snapshot.after_deletes",
    c_snapshot_before_bump => "snapshot.before_bump",
    c_snapshot_before_commit => "snapshot.before_commit",
    c_pump_before_commit => "pump.before_commit",
    c_pump_after_commit => "pump.after_commit",
    c_group_before_commit => "group.before_commit",
    c_group_after_commit => "group.after_commit",
    c_write_back_before_commit => "write_back.before_commit",
    c_journal_after_dispatch => "journal.after_dispatch",
    c_journal_after_call => "journal.after_call",
}

/// The name at every place of a `failpoint!("…")` or `failpoint::hit("…")`
/// in `src/`, one entry per place (a name used twice shows twice).
fn failpoints_in_sources() -> Vec<String> {
    fn walk(dir: &Path, names: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("read src") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, names);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("read a source file");
                for marker in ["failpoint!(\"", "failpoint::hit(\""] {
                    for (at, _) in text.match_indices(marker) {
                        let rest = &text[at + marker.len()..];
                        if let Some(end) = rest.find('"') {
                            names.push(rest[..end].to_owned());
                        }
                    }
                }
            }
        }
    }
    let mut names = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut names,
    );
    names.sort_unstable();
    names
}
