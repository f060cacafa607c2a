//! Hostile input among good messages, through the real thing: the mailbox
//! (MariaDB) holds a day's snapshot, hostile messages and good events in
//! between, and `flightstate pump --until-idle` runs over it as a child
//! process against PostgreSQL. Each hostile message ends with its own
//! outcome and reason in `PROC_STATE` and the mailbox, the good messages
//! after it apply, and the pump's peak memory stays bounded by the largest
//! messages: the large bodies add at most three copies of the largest to
//! the peak of the same stream without them. Invalid UTF-8,
//! which a utf8mb4 mailbox cannot hold, goes through `parse` and `apply`.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::process::Command;
use std::time::{Duration, Instant};

use common::TestDatabase;
use common::child::BIN;
use common::sis::{at, flight, flop, sep, snapshot};
use mysql::prelude::Queryable;
use pumping::{MailboxDatabase, proc_reasons, proc_states};

/// The site's limit in this test: a message over it is refused unread.
const LIMIT: usize = 8 * 1024 * 1024;
/// The largest body AODB's `CMINMSGS_CLOB_MSG` (MEDIUMTEXT) can hold.
const MEDIUMTEXT_MAX: usize = 16 * 1024 * 1024 - 1;

/// A FLOP padded with a comment to exactly `size` bytes.
fn padded_event(flid: i64, size: usize) -> Vec<u8> {
    let mut message = flop("RENO", &[(flid, "<RENO>BIG</RENO>")]);
    let end = message.len() - "</MSG>".len();
    let pad = size - message.len() - "<!---->".len();
    let comment = format!("<!--{}-->", " ".repeat(pad));
    message.splice(end..end, comment.into_bytes());
    assert_eq!(message.len(), size);
    message
}

fn nested(depth: usize) -> Vec<u8> {
    format!("<MSG>{}{}</MSG>", "<A>".repeat(depth), "</A>".repeat(depth)).into_bytes()
}

/// One message of the stream and what must become of it: `None` for a good
/// message (SUCCEEDED), else `(ERROR_KIND, words in the reason)`.
struct Case {
    name: &'static str,
    body: Vec<u8>,
    dead: Option<(&'static str, &'static str)>,
}

fn good(name: &'static str, body: Vec<u8>) -> Case {
    Case {
        name,
        body,
        dead: None,
    }
}

fn dead(name: &'static str, body: Vec<u8>, kind: &'static str, words: &'static str) -> Case {
    Case {
        name,
        body,
        dead: Some((kind, words)),
    }
}

fn stream() -> Vec<Case> {
    let bomb = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/messages/billion_laughs.xml"
    ))
    .expect("the entity bomb");
    vec![
        good(
            "day",
            snapshot(sep(9), (1..=5).map(|f| flight(f, at(9, 8, 0))).collect()),
        ),
        dead(
            "over the size limit",
            padded_event(1, LIMIT + 1),
            "BAD_INPUT",
            "too large",
        ),
        good("event after", flop("RENO", &[(1, "<RENO>A1</RENO>")])),
        dead(
            "at the mailbox column's maximum",
            padded_event(2, MEDIUMTEXT_MAX),
            "BAD_INPUT",
            "too large",
        ),
        dead("entity bomb", bomb, "BAD_INPUT", "DOCTYPE"),
        dead(
            "10,000-deep nesting",
            nested(10_000),
            "BAD_INPUT",
            "nested deeper",
        ),
        dead("empty body", Vec::new(), "BAD_INPUT", "no root element"),
        dead("<MSG/>", b"<MSG/>".to_vec(), "BAD_INPUT", "META"),
        dead(
            "20-digit FLID",
            TWENTY_DIGIT_FLID.to_vec(),
            "BAD_INPUT",
            "FLID",
        ),
        dead(
            "control character",
            flop("RENO", &[(2, "<RENO>B\u{7}2</RENO>")]),
            "BAD_INPUT",
            "U+0007",
        ),
        good(
            "quotes and SQL",
            flop("RENO", &[(3, "<RENO>'\";DROP TABLE x</RENO>")]),
        ),
        good("CJK text", flop("RENO", &[(4, "<RENO>国航-成都</RENO>")])),
        good(
            "an event for a flight that does not exist",
            flop("RENO", &[(777, "<RENO>NEW</RENO>")]),
        ),
        good("last event", flop("RENO", &[(5, "<RENO>END</RENO>")])),
    ]
}

/// A FLOP whose FLID has 20 digits, written by hand (the writer never writes one).
const TWENTY_DIGIT_FLID: &[u8] = b"<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN>\
<DTTM>20260909080000</DTTM><TYPE>FLOP</TYPE><STYP>RENO</STYP></META>\
<FLOP><FLID>12345678901234567890</FLID><RENO>X</RENO></FLOP></MSG>";

#[derive(diesel::QueryableByName)]
struct Reno {
    #[diesel(sql_type = diesel::sql_types::Text)]
    reno: String,
}

/// The stored RENO of a flight.
fn stored_reno(conn: &mut diesel::PgConnection, flid: i64) -> String {
    use diesel::RunQueryDsl;
    diesel::sql_query("SELECT reno FROM flight_schd WHERE flid = $1")
        .bind::<diesel::sql_types::BigInt, _>(flid)
        .get_result::<Reno>(conn)
        .expect("the flight is stored")
        .reno
}

/// The mailbox must take a row at MEDIUMTEXT's maximum: the server's
/// packet limit is raised for the connections opened from now on (a
/// session keeps the limit it connected with).
fn allow_large_packets() {
    let server = mysql::Pool::new(pumping::mariadb_server_url().as_str()).expect("MariaDB");
    server
        .get_conn()
        .and_then(|mut conn| conn.query_drop("SET GLOBAL max_allowed_packet = 67108864"))
        .expect("raise max_allowed_packet");
}

/// Waits (at most `limit`) for the child `pid` to exit; returns its wait
/// status and its own peak resident memory in KiB (`wait4`: that process's
/// figure, not the largest of every child this test process waited for).
fn wait_with_peak_rss_kib(pid: libc::pid_t, limit: Duration) -> (libc::c_int, i64) {
    let start = Instant::now();
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: wait4 writes into the zeroed struct and the int we own.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if rc == pid {
            return (status, usage.ru_maxrss);
        }
        assert_eq!(rc, 0, "wait4: {}", std::io::Error::last_os_error());
        if start.elapsed() > limit {
            // SAFETY: `kill` has no memory effects; the pid is our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            panic!("the pump did not get through the stream in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs `flightstate pump --until-idle` over the mailbox to its end;
/// returns the pump's peak RSS in KiB.
// `wait4` reaps the child, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn pump_to_idle(db: &TestDatabase, mb: &MailboxDatabase) -> i64 {
    let child = Command::new(BIN)
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "pump",
            "--until-idle",
        ])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_MAILBOX_URL", mb.url())
        .env("FLIGHTSTATE_PROTOCOL_MAX_MESSAGE_BYTES", LIMIT.to_string())
        .env("FLIGHTSTATE_PUMP_IDLE_POLL_MS", "100")
        .env("RUST_LOG", "warn")
        .env_remove("FLIGHTSTATE_FAILPOINTS")
        .spawn()
        .expect("start flightstate pump");
    let pid = libc::pid_t::try_from(child.id()).expect("pid fits");
    let (status, peak) = wait_with_peak_rss_kib(pid, Duration::from_secs(180));
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "pump --until-idle: wait status {status:#x}"
    );
    peak
}

/// What the two large bodies may add to the pump's peak RSS: three copies
/// of the largest (the driver's packet, the row's text, and one more as
/// margin). Measured: 40 MiB over the stream without them (75 → 115 MiB,
/// debug build), two and a half copies.
const LARGE_BODIES_ALLOWANCE_KIB: i64 = 3 * (MEDIUMTEXT_MAX as i64 + 1) / 1024;

#[test]
fn hostile_messages_are_dead_with_their_reasons_and_the_good_ones_apply() {
    allow_large_packets();
    let cases = stream();
    // The same stream without its two large bodies, in databases of its
    // own: the pump's peak RSS when no message is large.
    let baseline = {
        let db = TestDatabase::migrated();
        let mb = MailboxDatabase::create("hostile_small");
        for case in cases.iter().filter(|c| c.body.len() < LIMIT) {
            mb.insert(&case.body);
        }
        pump_to_idle(&db, &mb)
    };
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("hostile");
    let mut ids = Vec::new();
    for case in &cases {
        ids.push(mb.insert(&case.body));
    }
    let peak = pump_to_idle(&db, &mb);
    println!(
        "peak RSS of the pump: {} MiB; without the large bodies {} MiB",
        peak / 1024,
        baseline / 1024
    );
    assert!(
        peak <= baseline + LARGE_BODIES_ALLOWANCE_KIB,
        "peak RSS of the pump {} MiB, {} MiB without the {} MiB and {} MiB bodies: bounded by \
         the largest message (at most {} MiB more), not more",
        peak / 1024,
        baseline / 1024,
        (LIMIT + 1) >> 20,
        (MEDIUMTEXT_MAX + 1) >> 20,
        LARGE_BODIES_ALLOWANCE_KIB / 1024
    );

    let mut conn = db.connect();
    let states = proc_states(&mut conn);
    let reasons = proc_reasons(&mut conn);
    assert_eq!(states.len(), cases.len(), "every message has an outcome");
    let rows = mb.rows();
    for (i, case) in cases.iter().enumerate() {
        let (id, status, kind, _) = &states[i];
        assert_eq!(*id, ids[i], "{}", case.name);
        let reason = reasons[i].1.clone().unwrap_or_default();
        match case.dead {
            None => {
                assert_eq!(status, "SUCCEEDED", "{}: {reason}", case.name);
                assert_eq!(rows[i].1.as_deref(), Some("PROCESSED"), "{}", case.name);
            }
            Some((expected_kind, words)) => {
                assert_eq!(status, "DEAD", "{}", case.name);
                assert_eq!(kind.as_deref(), Some(expected_kind), "{}", case.name);
                assert!(
                    reason.contains(words),
                    "{}: the reason says why ({words}): {reason}",
                    case.name
                );
                assert_eq!(rows[i].1.as_deref(), Some("DEAD"), "{}", case.name);
            }
        }
        assert!(rows[i].2, "{}: written back", case.name);
    }
    let mut stored = |flid: i64| stored_reno(&mut conn, flid);
    assert_eq!(
        stored(3),
        "'\";DROP TABLE x",
        "stored verbatim, bound not spliced"
    );
    assert_eq!(stored(4), "国航-成都");
    assert_eq!(stored(777), "NEW");
    assert_eq!(stored(5), "END");
    assert_eq!(
        common::sis::count(
            &mut conn,
            "flight_schd",
            "flid = 777 AND operation_day IS NULL"
        ),
        1,
        "an event for an unknown flight creates it without a day"
    );
}

fn cli(args: &[&str], file: &std::path::Path, db: &TestDatabase) -> std::process::Output {
    Command::new(BIN)
        .args(["--config", "/nonexistent/flightstate.toml"])
        .args(args)
        .arg(file)
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("RUST_LOG", "warn")
        .output()
        .expect("run flightstate")
}

#[test]
fn invalid_utf8_is_refused_by_parse_and_apply_with_its_position() {
    let db = TestDatabase::migrated();
    let dir = std::env::temp_dir().join(format!("fs-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("latin1.xml");
    let mut body = flop("RENO", &[(1, "<RENO>Bxx</RENO>")]);
    let at = body.iter().position(|&b| b == b'x').expect("a place");
    body[at] = 0xE9; // é in Latin-1: not UTF-8
    std::fs::write(&file, &body).expect("write the file");

    let parsed = cli(&["parse"], &file, &db);
    assert_eq!(parsed.status.code(), Some(65), "parse rejects it");
    let said = String::from_utf8_lossy(&parsed.stdout).into_owned()
        + &String::from_utf8_lossy(&parsed.stderr);
    assert!(
        said.contains("not UTF-8") && said.contains("line 1"),
        "{said}"
    );

    let applied = cli(&["apply", "--message-id", "1"], &file, &db);
    assert_eq!(applied.status.code(), Some(65), "apply records it DEAD");
    let mut conn = db.connect();
    let states = proc_states(&mut conn);
    assert_eq!(states, [(1, "DEAD".into(), Some("BAD_INPUT".into()), 1)]);
    assert!(
        proc_reasons(&mut conn)[0]
            .1
            .as_deref()
            .is_some_and(|r| r.contains("not UTF-8")),
        "the reason says so"
    );
    assert_eq!(common::sis::count(&mut conn, "flight_schd", "true"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
