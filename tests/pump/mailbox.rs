//! The pump against real MariaDB (the mailbox) and PostgreSQL (the state
//! database), in process: failure policy, blocking and release of the head,
//! late lower ids, servers that become unreachable, and two pumps on one
//! database. Servers are made unreachable through a TCP proxy the test cuts
//! (`pumping::Proxy`): a test cannot stop the shared servers themselves.

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::RunQueryDsl;
use flightstate::journal::{Executor, WorkerLease};
use flightstate::mailbox::{Mailbox, WriteBack};
use flightstate::pipeline::Rules;
use flightstate::pump::{Pump, PumpSettings, Step};
use flightstate::station::utc_now;
use flightstate::store::Store;

use crate::common::TestDatabase;
use crate::common::sis::{at, flight, parse_options, sep, snapshot};
use crate::pumping::pg::{TwoPumps, mailbox, pg_store, two_pumps};
use crate::pumping::{
    MailboxDatabase, Proxy, effect_calls, proc_states, pump_settings, state_dump,
};

fn pipeline() -> Rules {
    Rules {
        parse: parse_options(),
        ..Rules::default()
    }
}

fn new_pump<S: Store + Clone>(store: S, mailbox: Arc<Mailbox>, holder: &str) -> Pump<S> {
    Pump::new(store, mailbox, pipeline(), pump_settings(holder))
}

/// Steps until idle (bounded), sleeping while blocked; returns the steps.
#[track_caller]
fn drain<S: Store + Clone>(pump: &mut Pump<S>) -> Vec<Step> {
    let mut steps = Vec::new();
    for _ in 0..500 {
        let step = pump.step().expect("no failpoint armed");
        steps.push(step.clone());
        match step {
            Step::Idle => return steps,
            Step::Blocked { until, .. } => {
                std::thread::sleep(until.saturating_duration_since(Instant::now()))
            }
            Step::Standby | Step::LeaseLost => panic!("the pump lost its lease: {steps:?}"),
            Step::Progress { .. } => {}
        }
    }
    panic!("the pump never became idle: {steps:?}");
}

fn day_snapshot(flids: &[i64]) -> Vec<u8> {
    snapshot(
        sep(9),
        flids.iter().map(|f| flight(*f, at(9, 8, 0))).collect(),
    )
}

const UNSUPPORTED: &[u8] =
    b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><MSG><META><SNDR>AODB</SNDR>\
<SEQN>1</SEQN><DTTM>20260909030000</DTTM><TYPE>AIRL</TYPE><STYP>DNLD</STYP></META>\
<AIRL><X>1</X></AIRL></MSG>";

#[test]
fn a_malformed_message_in_the_middle_is_dead_and_the_rest_applied() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("malformed");
    let first = mb.insert(&day_snapshot(&[1, 2]));
    let bad = mb.insert(b"<MSG><META><TYPE>SCHD</TYPE>");
    let last = mb.insert(&day_snapshot(&[1, 2, 3]));
    let mut pump = new_pump(pg_store(db.url()), mailbox(mb.url()), "a");
    drain(&mut pump);
    let mut conn = db.connect();
    let states = proc_states(&mut conn);
    assert_eq!(states[0], (first, "SUCCEEDED".into(), None, 1));
    assert_eq!(states[1].0, bad);
    assert_eq!(states[1].1, "DEAD");
    assert_eq!(states[1].2.as_deref(), Some("BAD_INPUT"));
    assert_eq!(states[2], (last, "SUCCEEDED".into(), None, 1));
    assert_eq!(
        crate::common::sis::count(&mut conn, "flight_schd", "true"),
        3
    );
    let rows = mb.rows();
    assert_eq!(
        rows.iter().map(|r| r.1.as_deref()).collect::<Vec<_>>(),
        [Some("PROCESSED"), Some("DEAD"), Some("PROCESSED")]
    );
    mb.assert_each_written_back_once();
}

#[test]
fn an_unsupported_message_is_dead_after_the_threshold() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("unsupported");
    let odd = mb.insert(UNSUPPORTED);
    let next = mb.insert(&day_snapshot(&[7]));
    let mut pump = new_pump(pg_store(db.url()), mailbox(mb.url()), "a");
    let steps = drain(&mut pump);
    let mut conn = db.connect();
    let states = proc_states(&mut conn);
    assert_eq!(
        states[0],
        (odd, "DEAD".into(), Some("UNSUPPORTED".into()), 3),
        "two FAILED(UNSUPPORTED) attempts, then DEAD in the third: {steps:?}"
    );
    let reason = crate::pumping::proc_reasons(&mut conn)[0]
        .1
        .clone()
        .unwrap_or_default();
    assert!(
        reason.ends_with("DEAD after 3 attempts"),
        "the reason counts the attempts the record shows: {reason}"
    );
    assert_eq!(states[1], (next, "SUCCEEDED".into(), None, 1));
    assert_eq!(mb.rows()[0].1.as_deref(), Some("DEAD"));
    mb.assert_each_written_back_once();
}

#[test]
fn an_unsupported_message_blocks_the_head_below_the_threshold() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("unsupblock");
    mb.insert(UNSUPPORTED);
    let next = mb.insert(&day_snapshot(&[7]));
    let settings = PumpSettings {
        unsupported_retry: Duration::from_secs(60),
        ..pump_settings("a")
    };
    let mut pump = Pump::new(pg_store(db.url()), mailbox(mb.url()), pipeline(), settings);
    assert!(matches!(pump.step(), Ok(Step::Blocked { .. })));
    assert!(matches!(pump.step(), Ok(Step::Blocked { .. })));
    let mut conn = db.connect();
    let states = proc_states(&mut conn);
    assert_eq!(states.len(), 1, "the message behind it waits: {states:?}");
    assert_eq!(states[0].1, "FAILED");
    assert_eq!(states[0].2.as_deref(), Some("UNSUPPORTED"));
    assert!(!mb.rows().iter().any(|r| r.0 == next && r.2));
}

#[test]
fn a_late_lower_id_is_still_taken() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("late");
    mb.insert_with_id(10, &day_snapshot(&[1]));
    mb.insert_with_id(11, &day_snapshot(&[1, 2]));
    let mut pump = new_pump(pg_store(db.url()), mailbox(mb.url()), "a");
    drain(&mut pump);
    // Committed late by AODB with a lower id.
    mb.insert_with_id(5, &snapshot(sep(10), vec![flight(5, at(10, 9, 0))]));
    drain(&mut pump);
    let mut conn = db.connect();
    let ids: Vec<i64> = proc_states(&mut conn).iter().map(|s| s.0).collect();
    assert_eq!(ids, [5, 10, 11]);
    mb.assert_each_written_back_once();
}

#[test]
fn postgres_unreachable_blocks_the_head_until_it_is_back() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("pgdown");
    // The pump reaches PostgreSQL only through the proxy.
    let proxy = Proxy::start("127.0.0.1:5432");
    let proxied = crate::common::database_url(
        &format!("postgres://postgres@{}/postgres", proxy.host_port()),
        db.name(),
    );
    let mut pump = new_pump(pg_store(&proxied), mailbox(mb.url()), "a");
    assert_eq!(pump.step().expect("step"), Step::Idle, "takes the lease");
    let head = mb.insert(&day_snapshot(&[1]));
    let behind = mb.insert(&day_snapshot(&[1, 2]));

    proxy.cut();
    for attempt in 0..3 {
        match pump.step().expect("step") {
            Step::Blocked { message_id, until } => {
                // Later looks stop earlier, at the lease renewal, which
                // cannot reach the database either.
                if attempt == 0 {
                    assert_eq!(message_id, Some(head), "the head blocks");
                }
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
            }
            other => panic!("expected the head blocked, got {other:?}"),
        }
    }
    let mut conn = db.connect();
    assert!(proc_states(&mut conn).is_empty(), "nothing applied");
    assert!(mb.rows().iter().all(|r| !r.2), "nothing written back");

    proxy.restore();
    drain(&mut pump);
    let states = proc_states(&mut conn);
    assert_eq!(
        states,
        [
            (head, "SUCCEEDED".into(), None, 1),
            (behind, "SUCCEEDED".into(), None, 1)
        ]
    );
    mb.assert_each_written_back_once();
}

#[cfg(feature = "failpoints")]
#[test]
fn a_database_fault_is_recorded_failed_infra_and_retried() {
    use flightstate::failpoint::{Action, arm, disarm_all};
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("infra");
    let head = mb.insert(&day_snapshot(&[1]));
    let behind = mb.insert(&day_snapshot(&[1, 2]));
    let mut pump = new_pump(pg_store(db.url()), mailbox(mb.url()), "a");
    // The state transaction fails once just before its commit.
    arm("pump.before_commit", Action::Error, 1);
    let step = pump.step().expect("step");
    disarm_all();
    assert_eq!(
        flightstate::failpoint::fired("pump.before_commit"),
        1,
        "the fault was injected"
    );
    assert!(
        matches!(step, Step::Blocked { message_id: Some(id), .. } if id == head),
        "{step:?}"
    );
    let mut conn = db.connect();
    assert_eq!(
        proc_states(&mut conn),
        [(head, "FAILED".into(), Some("INFRA".into()), 1)],
        "the head is FAILED(INFRA) and the message behind it waits"
    );
    drain(&mut pump);
    assert_eq!(
        proc_states(&mut conn),
        [
            (head, "SUCCEEDED".into(), None, 2),
            (behind, "SUCCEEDED".into(), None, 1)
        ]
    );
    mb.assert_each_written_back_once();
}

#[test]
fn mariadb_unreachable_during_write_back_then_back() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("mbdown");
    let proxy = Proxy::start("127.0.0.1:3306");
    let via_proxy = mailbox(mb.url_via(&proxy.host_port()));
    let store = pg_store(db.url());
    let ids = [
        mb.insert(&day_snapshot(&[1])),
        mb.insert(&day_snapshot(&[1, 2])),
        mb.insert(&day_snapshot(&[2, 3])),
    ];
    let settings = PumpSettings {
        inline_effects: false,
        ..pump_settings("a")
    };
    let mut pump = Pump::new(store.clone(), Arc::clone(&via_proxy), pipeline(), settings);
    assert_eq!(pump.step().expect("step"), Step::Progress { messages: 3 });
    let lease = WorkerLease {
        holder: "a".to_owned(),
        epoch: pump.epoch().expect("holds the lease"),
    };
    let write_back = WriteBack::new(&via_proxy);
    let executor = Executor::new(vec![&write_back], 100);

    proxy.cut();
    let report = executor.run_once(&store, &lease, utc_now).expect("a pass");
    assert_eq!(report.retry, 3, "{report:?}");
    let mut conn = db.connect();
    assert!(
        effect_calls(&mut conn)
            .iter()
            .all(|c| c.1 == "NOT_SENT" && c.2 == 1),
        "{:?}",
        effect_calls(&mut conn)
    );
    assert!(mb.rows().iter().all(|r| !r.2), "nothing written back yet");
    assert!(
        matches!(
            pump.step(),
            Ok(Step::Blocked {
                message_id: None,
                ..
            })
        ),
        "the pump cannot read the mailbox either"
    );

    proxy.restore();
    let report = executor.run_once(&store, &lease, utc_now).expect("a pass");
    assert_eq!(report.settled, 3, "{report:?}");
    assert!(
        effect_calls(&mut conn)
            .iter()
            .all(|c| c.1 == "ACCEPTED" && c.2 == 2),
        "granted again in a later attempt: {:?}",
        effect_calls(&mut conn)
    );
    mb.assert_each_written_back_once();
    assert_eq!(pump.step().expect("step"), Step::Idle);
    let states = proc_states(&mut conn);
    assert_eq!(
        states.iter().map(|s| (s.0, s.3)).collect::<Vec<_>>(),
        ids.iter().map(|id| (*id, 1)).collect::<Vec<_>>(),
        "nothing applied twice"
    );
}

/// Polls `condition` every 20 ms for at most `limit`; says whether it held.
fn within(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    loop {
        if condition() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_takeover_waits_for_a_state_transaction_that_holds_the_lock() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("heldlock");
    // A leaves its write-backs to whoever holds the lease next.
    let TwoPumps {
        a: mut pump_a,
        b: mut pump_b,
        gate,
        control,
        epoch_a,
    } = two_pumps(db.url(), mb.url(), true, pipeline(), pipeline());

    let bodies = [
        day_snapshot(&[1, 2]),
        day_snapshot(&[1, 2, 3]),
        day_snapshot(&[2, 3]),
    ];
    let first = mb.insert(&bodies[0]);
    // A's lease runs out a second from now, while A is inside its state
    // transaction (once A holds the row, nobody can write the expiry).
    let mut conn = db.connect();
    diesel::sql_query(
        "UPDATE pipeline_lock SET lease_expires_at = (now() AT TIME ZONE 'UTC') + interval '1 second'",
    )
    .execute(&mut conn)
    .expect("shorten A's lease");
    // A's first transaction of the step looks for a lost tail, the next
    // reads the message's PROC_STATE; the third is its state transaction:
    // pause A there just before COMMIT, holding PIPELINE_LOCK after its
    // fence check passed.
    gate.stop_at(3);
    let a = std::thread::spawn(move || {
        let step = pump_a.step().expect("step");
        (pump_a, step)
    });
    control
        .paused
        .recv_timeout(Duration::from_secs(30))
        .expect("A reaches the end of its state transaction");
    // A read its batch before: the next messages are B's.
    let rest: Vec<i64> = bodies[1..].iter().map(|b| mb.insert(b)).collect();
    assert!(
        within(Duration::from_secs(10), || crate::common::sis::count(
            &mut conn,
            "pipeline_lock",
            "lease_expires_at < clock_timestamp() AT TIME ZONE 'UTC'"
        ) == 1),
        "A's lease runs out"
    );

    // B tries to take over the expired lease: its UPDATE waits for A's row
    // lock, so the epoch cannot move under A's transaction.
    let b = std::thread::spawn(move || {
        let step = pump_b.step().expect("step");
        (pump_b, step)
    });
    assert!(
        within(Duration::from_secs(10), || crate::common::sis::count(
            &mut conn,
            "pg_stat_activity",
            "datname = current_database() AND wait_event_type = 'Lock' \
             AND query LIKE '%lease_epoch = lease_epoch + 1%'"
        ) == 1),
        "B's takeover waits for PIPELINE_LOCK"
    );
    // Seen waiting by the server: B cannot finish while A holds the row.
    assert!(!b.is_finished(), "B is still waiting for the row");
    assert_eq!(
        crate::common::sis::count(
            &mut conn,
            "pipeline_lock",
            &format!("lease_holder = 'pump-a' AND lease_epoch = {epoch_a}")
        ),
        1,
        "the epoch has not moved while A holds the row"
    );

    control.resume.send(()).expect("resume A");
    let (_pump_a, step_a) = a.join().expect("A's thread");
    assert_eq!(
        step_a,
        Step::Progress { messages: 1 },
        "A's commit is legitimate and succeeds"
    );
    assert!(
        within(Duration::from_secs(30), || b.is_finished()),
        "B's takeover goes through once A committed"
    );
    let (mut pump_b, step_b) = b.join().expect("B's thread");
    // A's message is committed and its write-back open in the journal: B
    // awaits it (B's effect worker makes it) instead of looking at it
    // again, and applies the two after it.
    assert_eq!(step_b, Step::Progress { messages: 2 });
    let epoch_b = pump_b.epoch().expect("B holds the lease");
    assert_eq!(epoch_b, epoch_a + 1, "one takeover, after A's commit");
    assert_eq!(drain(&mut pump_b).last(), Some(&Step::Idle));

    assert_eq!(
        proc_states(&mut conn),
        [
            (first, "SUCCEEDED".into(), None, 1),
            (rest[0], "SUCCEEDED".into(), None, 1),
            (rest[1], "SUCCEEDED".into(), None, 1),
        ],
        "each message applied exactly once"
    );
    mb.assert_each_written_back_once();
    assert_eq!(
        crate::common::sis::count(
            &mut conn,
            "effect_call",
            &format!("status = 'ACCEPTED' AND lease_epoch = {epoch_b}")
        ),
        3,
        "B made every write-back, A's committed intent included"
    );

    // The same messages applied in order, with no pump.
    let reference = TestDatabase::migrated();
    let store = pg_store(reference.url());
    for (id, body) in [first, rest[0], rest[1]].into_iter().zip(&bodies) {
        flightstate::pipeline::apply_message(&store, &pipeline(), id, body, utc_now())
            .expect("apply");
    }
    assert_eq!(
        state_dump(&mut conn),
        state_dump(&mut reference.connect()),
        "the final state equals applying the messages in order"
    );
}
