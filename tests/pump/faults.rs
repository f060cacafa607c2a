//! Failures found by pushing a day through the pump on real servers while
//! hostile messages were queued and rows re-sent: each test reproduces one
//! against real MariaDB (the mailbox) and PostgreSQL (the state database),
//! in process, and fails without its fix.
//!
//! - A character XML does not allow (a raw NUL) is DEAD at the parser, with
//!   its element path, in an event and inside a large snapshot.
//! - A value the database refuses every time (a class 22 or 23 error) is
//!   DEAD with the database's own words, never an endless retry.
//! - A mailbox row set back to pending after it was written back is written
//!   back again (a new journaled call), also when the re-sent rows fill the
//!   head of the queue; a re-sent row with another body is written back
//!   DEAD and the original's record stands.
//! - A session the server ends (`pg_terminate_backend`), again and again
//!   past the bypass rule's limit, bypasses nothing: the message applies
//!   once the kills stop.
//! - A graceful stop stops after the message in hand.
//! - A pump waiting for another's lease says whose, and until when.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use diesel::RunQueryDsl;
use diesel::connection::SimpleConnection;
use flightstate::mailbox::Mailbox;
use flightstate::pipeline::Rules;
use flightstate::pump::{Pump, PumpSettings, Step};
use flightstate::store::pg::PgStore;
use mysql::prelude::Queryable;

use crate::common::TestDatabase;
use crate::common::log::Captured;
use crate::common::sis::{at, flight, flop, parse_options, sep, snapshot};
use crate::pumping::{
    MailboxDatabase, mailbox_settings, proc_reasons, proc_states, pump_settings, state_dump,
};

fn new_pump(db: &TestDatabase, mb: &MailboxDatabase, settings: PumpSettings) -> Pump<PgStore> {
    let store = PgStore::connect(db.url(), 4, Duration::from_secs(2)).expect("pool");
    let mailbox = Arc::new(Mailbox::connect(mailbox_settings(mb.url())).expect("mailbox pool"));
    let pipeline = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    Pump::new(store, mailbox, pipeline, settings)
}

/// Steps until idle, sleeping while blocked; panics when the pump never
/// gets there (a head blocked for ever).
#[track_caller]
fn drain(pump: &mut Pump<PgStore>) -> Vec<Step> {
    let mut steps = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let step = pump.step().expect("no failpoint armed");
        steps.push(step.clone());
        match step {
            Step::Idle => return steps,
            Step::Blocked { until, .. } => {
                std::thread::sleep(until.saturating_duration_since(Instant::now()))
            }
            Step::Standby | Step::LeaseLost => panic!("the pump lost its lease"),
            Step::Progress { .. } => {}
        }
        assert!(
            steps.len() < 200,
            "the pump never became idle: {:?}",
            &steps[steps.len() - 3..]
        );
    }
    panic!(
        "the pump never became idle: {:?}",
        &steps[steps.len().saturating_sub(5)..]
    );
}

fn day(flids: impl IntoIterator<Item = i64>) -> Vec<u8> {
    snapshot(
        sep(9),
        flids.into_iter().map(|f| flight(f, at(9, 8, 0))).collect(),
    )
}

/// Puts a raw byte into `message` just before the first `</RENO>` at or
/// past `from`.
fn with_byte_in_reno(mut message: Vec<u8>, from: usize, byte: u8) -> Vec<u8> {
    let close = b"</RENO>";
    let at = from
        + message[from..]
            .windows(close.len())
            .position(|w| w == close)
            .expect("a RENO to spoil");
    message.insert(at, byte);
    message
}

fn mailbox_statuses(mb: &MailboxDatabase) -> Vec<(Option<String>, bool)> {
    mb.rows().into_iter().map(|r| (r.1, r.2)).collect()
}

#[test]
fn a_nul_byte_is_dead_at_the_parser_with_its_path_and_the_queue_moves_on() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("nul");
    let first = mb.insert(&day(1..=2));
    let event = mb.insert(&with_byte_in_reno(
        flop("RENO", &[(1, "<RENO>B1</RENO>")]),
        0,
        0,
    ));
    let big = day(1..=600);
    let middle = big.len() / 2;
    let in_snapshot = mb.insert(&with_byte_in_reno(big, middle, 0));
    let control = mb.insert(&with_byte_in_reno(
        flop("RENO", &[(2, "<RENO>B2</RENO>")]),
        0,
        0x1b,
    ));
    let last = mb.insert(&flop("RENO", &[(2, "<RENO>B22</RENO>")]));
    let mut pump = new_pump(&db, &mb, pump_settings("a"));
    drain(&mut pump);

    let mut conn = db.connect();
    let states = proc_states(&mut conn);
    let reasons = proc_reasons(&mut conn);
    assert_eq!(states[0], (first, "SUCCEEDED".into(), None, 1));
    for (i, id, code, path) in [
        (1, event, "U+0000", "MSG/FLOP[1]/RENO"),
        (2, in_snapshot, "U+0000", "MSG/SCHD/FLTR[30"),
        (3, control, "U+001B", "MSG/FLOP[1]/RENO"),
    ] {
        assert_eq!(states[i], (id, "DEAD".into(), Some("BAD_INPUT".into()), 1));
        let reason = reasons[i].1.clone().unwrap_or_default();
        assert!(
            reason.contains(code) && reason.contains(path),
            "message {id}: the reason names the character and its element: {reason}"
        );
    }
    assert_eq!(states[4], (last, "SUCCEEDED".into(), None, 1));
    assert_eq!(
        crate::common::sis::count(&mut conn, "flight_schd", "flid = 2 AND reno = 'B22'"),
        1,
        "the message behind the bad ones is applied"
    );
    assert_eq!(
        crate::common::sis::count(&mut conn, "flight_schd", "true"),
        2,
        "the spoiled snapshot changed nothing"
    );
    let statuses = mailbox_statuses(&mb);
    assert_eq!(
        statuses.iter().map(|s| s.0.as_deref()).collect::<Vec<_>>(),
        [
            Some("PROCESSED"),
            Some("DEAD"),
            Some("DEAD"),
            Some("DEAD"),
            Some("PROCESSED")
        ]
    );
    mb.assert_each_written_back_once();
}

#[test]
fn a_value_the_database_refuses_is_dead_with_the_database_words() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("refused");
    let first = mb.insert(&day(1..=3));
    let mut pump = new_pump(&db, &mb, pump_settings("a"));
    drain(&mut pump);
    pump.release();
    drop(pump);
    // A site's DBA narrowed a column and added a rule of the site's own
    // (while no pump ran: a prepared statement does not survive a change of
    // its result type): values that pass the protocol now fail in the
    // database, every time.
    let mut conn = db.connect();
    conn.batch_execute(
        "ALTER TABLE flight_schd ALTER COLUMN reno TYPE VARCHAR(5); \
         ALTER TABLE flight_schd ADD CONSTRAINT site_reno CHECK (reno IS DISTINCT FROM 'B0666')",
    )
    .expect("the site's schema change");
    let too_long = mb.insert(&flop("RENO", &[(1, "<RENO>B-ABCDEF</RENO>")]));
    let checked = mb.insert(&day([1, 2, 3, 666]));
    let last = mb.insert(&flop("RENO", &[(3, "<RENO>B33</RENO>")]));
    let mut pump = new_pump(&db, &mb, pump_settings("a"));
    drain(&mut pump);

    let states = proc_states(&mut conn);
    let reasons = proc_reasons(&mut conn);
    assert_eq!(states[0], (first, "SUCCEEDED".into(), None, 1));
    for (i, id, words) in [
        (1, too_long, "value too long for type character varying(5)"),
        (2, checked, "site_reno"),
    ] {
        assert_eq!(
            states[i],
            (id, "DEAD".into(), Some("DATA_REJECTED".into()), 1),
            "refused by the database: DEAD at the first attempt, never retried"
        );
        let reason = reasons[i].1.clone().unwrap_or_default();
        assert!(
            reason.contains("state database:") && reason.contains(words),
            "message {id}: the reason carries the database's own words: {reason}"
        );
    }
    assert_eq!(states[3], (last, "SUCCEEDED".into(), None, 1));
    assert_eq!(
        crate::common::sis::count(&mut conn, "flight_schd", "flid = 3 AND reno = 'B33'"),
        1
    );
    assert_eq!(
        crate::common::sis::count(&mut conn, "flight_schd", "flid = 666"),
        0
    );
    mb.assert_each_written_back_once();
}

/// Ends, from another session, every session of the database at `url` that
/// sleeps in `pg_sleep` (the site trigger below puts the pump's there), until
/// `stop` is set; returns how many it ended.
fn kill_sleepers(url: String, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<i64> {
    #[derive(diesel::QueryableByName)]
    struct Killed {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        killed: i64,
    }
    std::thread::spawn(move || {
        let mut conn = <diesel::PgConnection as diesel::Connection>::establish(&url)
            .expect("the killer's session");
        let mut killed = 0;
        while !stop.load(Ordering::SeqCst) {
            killed += diesel::sql_query(
                "SELECT count(pg_terminate_backend(pid)) AS killed FROM pg_stat_activity \
                 WHERE datname = current_database() AND wait_event = 'PgSleep' \
                 AND pid <> pg_backend_pid()",
            )
            .get_result::<Killed>(&mut conn)
            .expect("end the sleeping sessions")
            .killed;
            std::thread::sleep(Duration::from_millis(10));
        }
        killed
    })
}

#[test]
fn a_session_killed_again_and_again_past_the_bypass_limit_bypasses_nothing() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("killed");
    mb.insert(&day(1..=3));
    let limit = Duration::from_millis(300);
    let mut pump = new_pump(
        &db,
        &mb,
        PumpSettings {
            bypass_after: Some(limit),
            ..pump_settings("a")
        },
    );
    drain(&mut pump);
    // While the switch holds a row, every write of a main row waits in
    // pg_sleep, where the killer ends the pump's session: the pump's own
    // transaction dies mid-statement, as under a DBA's kill or a restart.
    let mut conn = db.connect();
    conn.batch_execute(
        "CREATE TABLE kill_switch (armed INTEGER); INSERT INTO kill_switch VALUES (1); \
         CREATE FUNCTION wait_to_be_killed() RETURNS trigger LANGUAGE plpgsql AS $$ \
         BEGIN IF EXISTS (SELECT 1 FROM kill_switch) THEN PERFORM pg_sleep(600); END IF; \
         RETURN NEW; END $$; \
         CREATE TRIGGER wait_to_be_killed BEFORE UPDATE ON flight_schd \
         FOR EACH ROW EXECUTE FUNCTION wait_to_be_killed()",
    )
    .expect("the kill switch");
    let head = mb.insert(&flop("RENO", &[(1, "<RENO>B-KILL</RENO>")]));
    let stop = Arc::new(AtomicBool::new(false));
    let killer = kill_sleepers(db.url().to_owned(), Arc::clone(&stop));

    let started = Instant::now();
    let mut attempts = 0;
    while attempts < 8 || started.elapsed() < limit * 3 {
        match pump.step().expect("no failpoint armed") {
            Step::Blocked { message_id, until } => {
                assert_eq!(message_id, Some(head), "the head waits");
                attempts += 1;
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
            }
            other => panic!("attempt {attempts}: a killed session moved the head: {other:?}"),
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the kills took too long"
        );
    }
    stop.store(true, Ordering::SeqCst);
    let killed = killer.join().expect("the killer thread");
    assert!(
        killed >= attempts,
        "every attempt was killed: {killed} kills, {attempts} attempts"
    );
    let states = proc_states(&mut conn);
    assert_eq!(states[1].0, head);
    assert_eq!(states[1].1, "FAILED", "retried, never bypassed: {states:?}");

    conn.batch_execute("DELETE FROM kill_switch")
        .expect("the kills stop");
    drain(&mut pump);
    let states = proc_states(&mut conn);
    assert_eq!(
        (states[1].0, states[1].1.as_str(), states[1].2.as_deref()),
        (head, "SUCCEEDED", None),
        "applied once the kills stopped"
    );
    assert_eq!(
        crate::common::sis::count(&mut conn, "flight_schd", "flid = 1 AND reno = 'B-KILL'"),
        1
    );
    mb.assert_each_written_back_once();
}

/// Sets rows back to pending as AODB or an operator re-sends them (or a
/// mailbox backup is restored), with a new body when one is given.
fn resend(mb: &MailboxDatabase, ids: &[i64], body: Option<&[u8]>) {
    let mut conn = mb.conn();
    for id in ids {
        match body {
            Some(body) => conn.exec_drop(
                "UPDATE cminmsgs SET CMINMSGS_STATUS = 'VALID', CMINMSGS_DATE_PROCESSED = NULL, \
                 CMINMSGS_CLOB_MSG = ? WHERE CMINMSGS_ID = ?",
                (body, id),
            ),
            None => conn.exec_drop(
                "UPDATE cminmsgs SET CMINMSGS_STATUS = 'VALID', CMINMSGS_DATE_PROCESSED = NULL \
                 WHERE CMINMSGS_ID = ?",
                (id,),
            ),
        }
        .expect("re-send a row");
    }
}

#[derive(diesel::QueryableByName, Debug, PartialEq)]
struct Call {
    #[diesel(sql_type = diesel::sql_types::Text)]
    sub_key: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    status: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    payload: String,
}

fn calls(conn: &mut diesel::PgConnection) -> Vec<(String, String, String)> {
    diesel::sql_query("SELECT sub_key, status, payload FROM effect_call ORDER BY call_id")
        .load::<Call>(conn)
        .expect("read the journal")
        .into_iter()
        .map(|c| (c.sub_key, c.status, c.payload))
        .collect()
}

#[test]
fn a_re_sent_row_is_written_back_again_and_never_holds_the_head() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("resent");
    let mut ids = vec![mb.insert(&day(1..=3))];
    for flid in 1..=3 {
        ids.push(mb.insert(&flop("RENO", &[(flid, &format!("<RENO>R{flid}</RENO>"))])));
    }
    // More re-sent rows than the pump reads at once.
    let settings = PumpSettings {
        head_batch: 3,
        ..pump_settings("a")
    };
    let mut pump = new_pump(&db, &mb, settings);
    drain(&mut pump);
    let mut conn = db.connect();
    let states = proc_states(&mut conn);

    resend(&mb, &ids, None);
    let new = mb.insert(&flop("RENO", &[(1, "<RENO>NEW</RENO>")]));
    drain(&mut pump);
    assert!(
        mb.rows()
            .iter()
            .all(|r| r.2 && r.1.as_deref() == Some("PROCESSED")),
        "every re-sent row is written back again: {:?}",
        mb.rows()
    );
    let after = proc_states(&mut conn);
    assert_eq!(&after[..4], &states[..], "nothing is applied twice");
    assert_eq!(
        after[4],
        (new, "SUCCEEDED".into(), None, 1),
        "the head moved on"
    );
    let journal = calls(&mut conn);
    for id in &ids {
        for key in [format!("backfill:{id}"), format!("backfill:{id}:resent:1")] {
            assert!(
                journal.contains(&(key.clone(), "ACCEPTED".into(), "PROCESSED".into())),
                "{key} made once: {journal:?}"
            );
        }
    }

    // A second re-send is a second redelivery; a re-sent row with another
    // body is DEAD for that delivery while the original's record stands.
    let dump = state_dump(&mut conn);
    resend(&mb, &ids[1..2], None);
    resend(
        &mb,
        &ids[2..3],
        Some(&flop("RENO", &[(2, "<RENO>CHANGED</RENO>")])),
    );
    drain(&mut pump);
    let rows = mb.rows();
    assert_eq!(rows[1].1.as_deref(), Some("PROCESSED"));
    assert_eq!(
        rows[2].1.as_deref(),
        Some("DEAD"),
        "the changed body is written back DEAD"
    );
    assert!(rows.iter().all(|r| r.2), "nothing left pending: {rows:?}");
    assert_eq!(
        proc_states(&mut conn),
        after,
        "the original outcomes and attempts stand"
    );
    assert_eq!(
        state_dump(&mut conn),
        dump,
        "the changed body was not applied"
    );
    let journal = calls(&mut conn);
    assert!(journal.contains(&(
        format!("backfill:{}:resent:2", ids[1]),
        "ACCEPTED".into(),
        "PROCESSED".into()
    )));
    assert!(
        journal.contains(&(
            format!("backfill:{}:resent:2", ids[2]),
            "ACCEPTED".into(),
            "DEAD".into()
        )),
        "{journal:?}"
    );
}

#[test]
fn a_graceful_stop_stops_after_the_message_in_hand() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("stop");
    mb.insert(&day(1..=5));
    for n in 0..300 {
        let flid = n % 5 + 1;
        mb.insert(&flop("RENO", &[(flid, &format!("<RENO>S{n}</RENO>"))]));
    }
    // One message per transaction, so that "the message in hand" is one.
    let settings = PumpSettings {
        head_batch: 500,
        group_commit: 1,
        ..pump_settings("a")
    };
    let mut pump = new_pump(&db, &mb, settings);
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let stop = Arc::clone(&stop);
        let url = db.url().to_owned();
        std::thread::spawn(move || {
            let mut conn = <diesel::PgConnection as diesel::Connection>::establish(&url)
                .expect("watch the state database");
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                if crate::common::sis::count(&mut conn, "proc_state", "true") >= 3 {
                    stop.store(true, Ordering::SeqCst);
                    // Counted once the stop is set: the pump may since have
                    // committed only the message it had in hand.
                    return Some(crate::common::sis::count(&mut conn, "proc_state", "true"));
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            None
        })
    };
    let step = pump.step_unless(&stop).expect("no failpoint armed");
    let at_stop = watcher
        .join()
        .expect("the watcher")
        .expect("the stop was asked for");
    let mut conn = db.connect();
    let applied = crate::common::sis::count(&mut conn, "proc_state", "true");
    println!("{at_stop} applied when the stop was seen set, {applied} when the pump returned");
    assert!(
        (at_stop..=at_stop + 1).contains(&applied),
        "the pump finished at most the message in hand after the stop, not the rest of its \
         301-message batch: {at_stop} applied once the stop was set, {applied} in the end, {step:?}"
    );
    assert!(
        mb.rows().iter().filter(|r| r.2).count() as i64 == applied,
        "what was applied is written back before the pump returns"
    );
}

#[test]
fn a_waiting_pump_says_whose_lease_it_waits_for_once() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("waiting");
    mb.insert(&day(1..=2));
    let mut active = new_pump(&db, &mb, pump_settings("active-host:1:aaaa"));
    drain(&mut active);
    let mut standby = new_pump(&db, &mb, pump_settings("standby-host:2:bbbb"));
    let log = Captured::default();
    log.during(|| {
        for _ in 0..3 {
            assert_eq!(standby.step().expect("no failpoint"), Step::Standby);
        }
    });
    let text = log.text();
    let said: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("another pump holds the lease"))
        .collect();
    assert_eq!(said.len(), 1, "said once, not at every look: {text}");
    assert!(
        said[0].contains("active-host:1:aaaa") && said[0].contains("UTC"),
        "names the holder and the expiry: {}",
        said[0]
    );
}
