//! The pump as a child process (`flightstate pump --until-idle`, built with
//! the features of this test run) against real MariaDB and PostgreSQL:
//!
//! - order: a mixed stream (a DNLD, the day's FLOPs and ADFTs, a malformed
//!   and an unsupported message) is applied in mailbox id order, and the
//!   final state equals `flightstate apply` of the same files in that order;
//! - crash recovery: for each named failpoint the pump dies there (abort,
//!   not unwind) in the middle of the stream, is restarted, and the final
//!   state equals the run without a crash; every mailbox row is written
//!   back exactly once; no message is applied twice.
#![cfg(all(feature = "postgres", feature = "failpoints"))]

mod common;
mod pumping;

use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use common::TestDatabase;
use flightstate::protocol::to_xml;
use flightstate::synth::{DayOptions, airport_day};
use pumping::{MailboxDatabase, effect_calls, proc_states, state_dump};

const BIN: &str = env!("CARGO_BIN_EXE_flightstate");

/// The stream: the day's snapshot, then its updates, with a malformed and
/// an unsupported message in the middle.
fn stream() -> Vec<Vec<u8>> {
    let day = airport_day(&DayOptions {
        flights: 6,
        ..DayOptions::default()
    });
    let mut messages = vec![to_xml(&day.snapshot).into_bytes()];
    let events: Vec<Vec<u8>> = day.events.iter().map(|m| to_xml(m).into_bytes()).collect();
    let middle = events.len() / 2;
    messages.extend_from_slice(&events[..middle]);
    messages.push(b"<MSG><META><TYPE>FLOP</TYPE>".to_vec());
    messages.push(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN>\
<DTTM>20250601030000</DTTM><TYPE>AIRL</TYPE><STYP>DNLD</STYP></META><AIRL><X>1</X></AIRL></MSG>"
            .to_vec(),
    );
    messages.extend_from_slice(&events[middle..]);
    messages
}

/// Runs `flightstate pump --until-idle` to its end (at most 120 s).
fn pump(db: &TestDatabase, mb: &MailboxDatabase, failpoint: Option<&str>) -> ExitStatus {
    let mut command = Command::new(BIN);
    command
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "pump",
            "--until-idle",
        ])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_MAILBOX_URL", mb.url())
        .env("FLIGHTSTATE_PUMP_LEASE_SECS", "3")
        .env("FLIGHTSTATE_PUMP_IDLE_POLL_MS", "100")
        .env("FLIGHTSTATE_PUMP_BACKOFF_INITIAL_MS", "50")
        .env("FLIGHTSTATE_PUMP_BACKOFF_MAX_MS", "500")
        .env("FLIGHTSTATE_PUMP_UNSUPPORTED_THRESHOLD", "2")
        // Small batches, so that a crash falls between batches too.
        .env("FLIGHTSTATE_PUMP_HEAD_BATCH", "7")
        .env("FLIGHTSTATE_PUMP_EFFECT_BATCH", "3")
        .env("RUST_LOG", "warn")
        .env_remove("FLIGHTSTATE_FAILPOINTS");
    if let Some(point) = failpoint {
        command.env("FLIGHTSTATE_FAILPOINTS", format!("{point}=abort"));
    }
    let mut child = command.spawn().expect("start flightstate pump");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for the pump") {
            return status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flightstate pump did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
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

fn uninterrupted(tag: &str, messages: &[Vec<u8>]) -> Outcome {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    for m in messages {
        mb.insert(m);
    }
    assert!(pump(&db, &mb, None).success());
    mb.assert_each_written_back_once();
    outcome(&db, &mb)
}

#[test]
fn the_pump_applies_in_id_order_like_flightstate_apply() {
    let messages = stream();
    let pumped = uninterrupted("order", &messages);

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
    let messages = stream();
    let expected = uninterrupted(&format!("{tag}_ref"), &messages);

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let half = messages.len() / 2;
    for m in &messages[..half] {
        mb.insert(m);
    }
    assert!(pump(&db, &mb, None).success(), "the first half");
    for m in &messages[half..] {
        mb.insert(m);
    }
    let crashed = pump(&db, &mb, Some(point));
    assert!(
        !crashed.success(),
        "the pump must die at `{point}`: {crashed:?}"
    );
    assert!(pump(&db, &mb, None).success(), "the restarted pump");

    mb.assert_each_written_back_once();
    let got = outcome(&db, &mb);
    assert_eq!(got.mailbox.len(), expected.mailbox.len());
    assert_eq!(
        got.mailbox.iter().map(|r| r.1.clone()).collect::<Vec<_>>(),
        expected
            .mailbox
            .iter()
            .map(|r| r.1.clone())
            .collect::<Vec<_>>(),
        "each row written back with the same status"
    );
    assert_eq!(
        got.calls, expected.calls,
        "one settled write-back per message"
    );
    // The dump holds PROC_STATE.ATTEMPTS: equal dumps mean no message was
    // applied (or recorded) twice.
    assert_eq!(got.state, expected.state, "final state after `{point}`");
}

#[test]
fn crash_after_parse() {
    crash_and_restart("apply.after_parse", "c_parse");
}

#[test]
fn crash_inside_the_state_transaction_before_commit() {
    crash_and_restart("pump.before_commit", "c_commit");
}

#[test]
fn crash_after_commit_before_the_write_back() {
    crash_and_restart("pump.after_commit", "c_aftercommit");
}

#[test]
fn crash_after_dispatched_before_the_call() {
    crash_and_restart("journal.after_dispatch", "c_dispatch");
}

#[test]
fn crash_after_the_call_before_the_receipt() {
    crash_and_restart("journal.after_call", "c_call");
}
