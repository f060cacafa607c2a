//! Evidence about the upstream, counted by the pump on real MariaDB (the
//! mailbox) and PostgreSQL (the state database): per operation day the
//! arrivals that contradict the senders' clocks (rule M), per sender what
//! its SEQNs did, and the head blocked by an infrastructure failure — each
//! shown by `flightstate status` (text and JSON), the status page and the
//! metrics.
//!
//! The stream is written here, message by message, with the DTTM and SEQN
//! each one needs; the expected counts follow from the stream alone.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/reading/mod.rs"]
mod reading;

use std::time::{Duration, Instant};

use common::TestDatabase;
use common::sis::{at, flop_sent, parse_options, sep, snapshot_sent, unsupported_sent};
use flightstate::api::{StatusLimits, collect};
use flightstate::pipeline::Rules;
use flightstate::pump::{Pump, PumpSettings, Step};
use flightstate::store::pg::PgStore;
use flightstate::store::{DayOrder, SenderSeqn};
use mysql::prelude::Queryable;
use pumping::pg::{drain, mailbox, pg_store};
use pumping::{MailboxDatabase, proc_states, pump_settings};
use reading::{TestApi, get, parse_prometheus, settings, value};

const LIMITS: StatusLimits = StatusLimits {
    dead_letters: 10,
    days: 5,
    head_blocked_alert_secs: 2,
};

fn new_pump(db: &TestDatabase, mb: &MailboxDatabase, settings: PumpSettings) -> Pump<PgStore> {
    let pipeline = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    Pump::new(pg_store(db.url()), mailbox(mb.url()), pipeline, settings)
}

/// The ids of the crafted stream, by role.
struct Stream {
    s1: i64,
    e3: i64,
    s2: i64,
    e4: i64,
    ops_last: i64,
    unreadable: i64,
}

/// Writes the stream: two snapshots of 9 September, events before and
/// after each in and out of DTTM order, two senders, SEQNs that repeat,
/// skip, go back, wrap and are not numbers.
fn write_stream(mb: &MailboxDatabase) -> Stream {
    let day = sep(9);
    let s1 = mb.insert(&snapshot_sent(day, &[1, 2], "000001", at(9, 9, 0)));
    // In order after S1.
    mb.insert(&flop_sent("AODB", "000002", at(9, 9, 5), 1));
    // Older than S1 (late), and the same SEQN again (repeat).
    mb.insert(&flop_sent("AODB", "000002", at(9, 8, 55), 2));
    // Newer than S2 will be; SEQN skips 000003 and 000004 (gap of 2).
    let e3 = mb.insert(&flop_sent("AODB", "000005", at(9, 9, 20), 1));
    // S2 is older than E3, which it overwrites (stale).
    let s2 = mb.insert(&snapshot_sent(day, &[1, 2], "000006", at(9, 9, 10)));
    // Older than S2 (late); SEQN goes back (reset).
    let e4 = mb.insert(&flop_sent("AODB", "000003", at(9, 9, 9), 2));
    // A flight of no day yet: no day to count it for; SEQN in order.
    mb.insert(&flop_sent("AODB", "000004", at(9, 7, 0), 99));
    // Another sender: its first SEQN, then the wrap, then from 000001 in an
    // unsupported message (counted once over its attempts).
    mb.insert(&flop_sent("OPS", "999999", at(9, 9, 30), 1));
    mb.insert(&flop_sent("OPS", "000000", at(9, 9, 31), 1));
    let ops_last = mb.insert(&unsupported_sent("OPS", "000001", at(9, 9, 32)));
    // Not a number, newer than S2.
    let unreadable = mb.insert(&flop_sent("AODB", "A17", at(9, 9, 12), 2));
    Stream {
        s1,
        e3,
        s2,
        e4,
        ops_last,
        unreadable,
    }
}

fn expected_day(stream: &Stream) -> DayOrder {
    DayOrder {
        snapshot_dttm: Some(at(9, 9, 10)),
        snapshot_message_id: Some(stream.s2),
        // The OPS events of flight 1 are the newest since S2.
        newest_event_dttm: Some(at(9, 9, 31)),
        newest_event_id: Some(stream.ops_last - 1),
        late_events: 2,
        last_late_event_id: Some(stream.e4),
        late_event_after_id: Some(stream.s2),
        stale_snapshots: 1,
        last_stale_snapshot_id: Some(stream.s2),
        stale_snapshot_over_id: Some(stream.e3),
        ..DayOrder::new(sep(9))
    }
}

fn expected_senders(stream: &Stream) -> Vec<SenderSeqn> {
    vec![
        SenderSeqn {
            sender: "AODB".into(),
            last_seqn: "A17".into(),
            last_message_id: stream.unreadable,
            messages: 8,
            repeats: 1,
            gaps: 1,
            missing: 2,
            resets: 1,
            unreadable: 1,
            last_anomaly: Some("UNREADABLE".into()),
            last_anomaly_id: Some(stream.unreadable),
        },
        SenderSeqn {
            sender: "OPS".into(),
            last_seqn: "000001".into(),
            last_message_id: stream.ops_last,
            messages: 3,
            ..SenderSeqn::default()
        },
    ]
}

#[test]
fn inversions_and_seqn_anomalies_are_counted_exactly_alone_or_in_groups() {
    for group_commit in [1, 50] {
        let db = TestDatabase::migrated();
        let mb = MailboxDatabase::create(&format!("evidence{group_commit}"));
        let stream = write_stream(&mb);
        let mut pump = new_pump(
            &db,
            &mb,
            PumpSettings {
                group_commit,
                ..pump_settings("evidence")
            },
        );
        drain(&mut pump);
        let states = proc_states(&mut db.connect());
        assert_eq!(states.len(), 11, "{states:?}");
        assert_eq!(states[0].1, "SUCCEEDED");
        assert_eq!(
            states.iter().filter(|s| s.1 == "DEAD").count(),
            1,
            "only the unsupported message is DEAD: {states:?}"
        );
        let store = pg_store(db.url());
        let status = collect(&store, None, LIMITS);
        let facts = status.state.as_ref().expect("state facts");
        assert_eq!(
            facts.order,
            vec![expected_day(&stream)],
            "group_commit {group_commit}"
        );
        assert_eq!(
            facts.senders,
            expected_senders(&stream),
            "group_commit {group_commit}"
        );
        assert!(facts.blocked_head.is_none());
        assert!(stream.s1 < stream.s2);

        let text = status.to_text();
        assert!(
            text.contains(&format!(
                "  2026-09-09  2 late events (latest {} after snapshot {}), 1 stale snapshots (latest {} over event {})",
                stream.e4, stream.s2, stream.s2, stream.e3
            )),
            "{text}"
        );
        assert!(
            text.contains("  OPS  3 messages, last SEQN 000001"),
            "{text}"
        );
        let json = serde_json::to_value(&status).expect("status JSON");
        assert_eq!(json["state"]["order"][0]["late_events"], 2);
        assert_eq!(json["state"]["senders"][0]["resets"], 1);

        let api = TestApi::start(store, None, settings(None, None));
        let metrics = parse_prometheus(&get(api.addr, "/metrics").text()).expect("metrics");
        let day = [("operation_day", "2026-09-09")];
        assert_eq!(value(&metrics, "flightstate_order_late_events", &day), 2.0);
        assert_eq!(
            value(&metrics, "flightstate_order_stale_snapshots", &day),
            1.0
        );
        for (kind, count) in [
            ("repeat", 1.0),
            ("gap", 1.0),
            ("reset", 1.0),
            ("unreadable", 1.0),
        ] {
            assert_eq!(
                value(
                    &metrics,
                    "flightstate_seqn_anomalies",
                    &[("sender", "AODB"), ("kind", kind)]
                ),
                count,
                "{kind}"
            );
        }
        assert_eq!(
            value(&metrics, "flightstate_seqn_missing", &[("sender", "AODB")]),
            2.0
        );
        assert_eq!(
            value(
                &metrics,
                "flightstate_seqn_anomalies",
                &[("sender", "OPS"), ("kind", "reset")]
            ),
            0.0,
            "999999 then 000000 is the wrap"
        );
        let page = get(api.addr, "/").text();
        assert!(page.contains("<table id=\"order\">"), "{page}");
        assert!(page.contains("<td>OPS</td><td>3</td>"), "{page}");
    }
}

#[test]
fn a_message_counted_once_is_not_counted_again_when_its_row_comes_back() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("evidence_resent");
    let stream = write_stream(&mb);
    let mut pump = new_pump(&db, &mb, pump_settings("evidence"));
    drain(&mut pump);
    let store = pg_store(db.url());
    let before = collect(&store, None, LIMITS).state.expect("facts");
    // AODB (or an operator) sends every row again.
    mb.conn()
        .query_drop("UPDATE cminmsgs SET CMINMSGS_STATUS = 'VALID', CMINMSGS_DATE_PROCESSED = NULL")
        .expect("re-send every row");
    drain(&mut pump);
    let after = collect(&store, None, LIMITS).state.expect("facts");
    assert_eq!(after.order, before.order);
    assert_eq!(after.senders, before.senders);
    assert_eq!(after.senders, expected_senders(&stream));
}

#[cfg(feature = "failpoints")]
#[test]
fn a_head_blocked_by_the_infrastructure_beyond_the_limit_is_an_alert_until_it_moves() {
    use common::log::Captured;
    use flightstate::api::ApiSettings;
    use flightstate::failpoint::{self, Action};
    use flightstate::mailbox::Mailbox;
    use pumping::mailbox_settings;

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("head_alert");
    let head = mb.insert(&flop_sent("AODB", "000001", at(9, 9, 0), 1));
    let behind = mb.insert(&flop_sent("AODB", "000002", at(9, 9, 1), 1));
    let limit = Duration::from_secs(LIMITS.head_blocked_alert_secs);
    let mut pump = new_pump(
        &db,
        &mb,
        PumpSettings {
            head_blocked_alert: limit,
            group_commit: 1,
            ..pump_settings("evidence")
        },
    );
    let store = pg_store(db.url());
    let mailbox_pool = Mailbox::connect(mailbox_settings(mb.url())).expect("mailbox pool");
    let api = TestApi::start(
        store.clone(),
        None,
        ApiSettings {
            limits: LIMITS,
            ..settings(None, None)
        },
    );
    let alert_metric = || {
        let metrics = parse_prometheus(&get(api.addr, "/metrics").text()).expect("metrics");
        value(&metrics, "flightstate_head_blocked_alert", &[])
    };
    let log = Captured::default();
    log.during(|| {
        // The state database fails every write of the event: FAILED(INFRA).
        failpoint::arm("event.before_write", Action::Error, u32::MAX);
        let started = Instant::now();
        assert!(matches!(
            pump.step().expect("step"),
            Step::Blocked { message_id: Some(id), .. } if id == head
        ));
        let status = collect(&store, Some(&mailbox_pool), LIMITS);
        let blocked = status
            .state
            .as_ref()
            .and_then(|s| s.blocked_head.clone())
            .expect("the head is blocked");
        assert_eq!(
            (
                blocked.message.message_id,
                blocked.message.error_kind.as_str()
            ),
            (head, "INFRA")
        );
        assert!(!blocked.alert, "not before the limit: {blocked:?}");
        assert_eq!(alert_metric(), 0.0);
        assert!(log.lines_with("ERROR").is_empty(), "{}", log.text());

        // Past the limit, while the pump keeps retrying.
        while started.elapsed() < limit + Duration::from_millis(1500) {
            if let Step::Blocked { until, .. } = pump.step().expect("step") {
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
            }
        }
        assert!(failpoint::fired("event.before_write") > 1);
        let status = collect(&store, Some(&mailbox_pool), LIMITS);
        let blocked = status
            .state
            .as_ref()
            .and_then(|s| s.blocked_head.clone())
            .expect("the head is still blocked");
        assert!(blocked.alert, "{blocked:?}");
        assert!(blocked.blocked_secs >= 2, "{blocked:?}");
        assert!(
            status
                .to_text()
                .contains(&format!("head: ALERT, message {head} blocked"))
        );
        assert_eq!(alert_metric(), 1.0);
        let raised = log.lines_with("head of the queue is blocked by an infrastructure failure");
        assert_eq!(raised.len(), 1, "said once: {}", log.text());
        assert!(raised[0].contains("ERROR"), "{}", raised[0]);

        // The fault is fixed: the head moves, the alert is cleared.
        failpoint::disarm_all();
        drain(&mut pump);
    });
    let states = proc_states(&mut db.connect());
    assert_eq!(
        states
            .iter()
            .map(|s| (s.0, s.1.as_str()))
            .collect::<Vec<_>>(),
        [(head, "SUCCEEDED"), (behind, "SUCCEEDED")]
    );
    let status = collect(&store, Some(&mailbox_pool), LIMITS);
    assert!(status.state.expect("facts").blocked_head.is_none());
    assert_eq!(alert_metric(), 0.0);
    assert_eq!(
        log.lines_with("the head-blocked alert is cleared").len(),
        1,
        "{}",
        log.text()
    );
    assert_eq!(
        log.lines_with("head of the queue is blocked by an infrastructure failure")
            .len(),
        1,
        "raised once in all"
    );
}

#[test]
fn a_state_database_cut_under_the_pump_beyond_the_limit_is_an_alert_until_it_is_back() {
    use common::log::Captured;
    use flightstate::store::pg::PgStore;
    use pumping::Proxy;

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("head_cut");
    let proxy = Proxy::start("127.0.0.1:5432");
    let url = format!("postgres://postgres@{}/{}", proxy.host_port(), db.name());
    let store = PgStore::connect(&url, 4, Duration::from_secs(1)).expect("pool via the proxy");
    let limit = Duration::from_secs(LIMITS.head_blocked_alert_secs);
    let pipeline = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    let mut pump = Pump::new(
        store,
        mailbox(mb.url()),
        pipeline,
        PumpSettings {
            head_blocked_alert: limit,
            // The bypass rule is on as well: an outage says nothing of the
            // message, so it must bypass nothing.
            bypass_after: Some(limit),
            ..pump_settings("evidence")
        },
    );
    let first = mb.insert(&flop_sent("AODB", "000001", at(9, 9, 0), 1));
    let log = Captured::default();
    log.during(|| {
        drain(&mut pump);
        proxy.cut();
        mb.insert(&flop_sent("AODB", "000002", at(9, 9, 1), 1));
        let raised = || {
            log.lines_with("head of the queue is blocked by an infrastructure failure")
                .len()
        };
        let mut step = || match pump.step().expect("step") {
            Step::Blocked { until, .. } => {
                std::thread::sleep(until.saturating_duration_since(Instant::now()))
            }
            other => panic!("the head cannot move without its database: {other:?}"),
        };
        let started = Instant::now();
        while raised() == 0 {
            assert!(
                started.elapsed() < limit + Duration::from_secs(30),
                "no alert: {}",
                log.text()
            );
            step();
        }
        assert!(started.elapsed() >= limit, "not before the limit");
        // The head stays blocked: said once, not at every retry.
        step();
        step();
        assert_eq!(raised(), 1, "{}", log.text());
        assert!(log.lines_with("alert is cleared").is_empty());
        proxy.restore();
        drain(&mut pump);
    });
    let states = proc_states(&mut db.connect());
    assert_eq!(states.len(), 2, "{states:?}");
    assert_eq!(states[0].0, first);
    assert!(states.iter().all(|s| s.1 == "SUCCEEDED"), "{states:?}");
    let raised = log.lines_with("head of the queue is blocked by an infrastructure failure");
    assert_eq!(raised.len(), 1, "raised once in all: {}", log.text());
    assert!(raised[0].contains("ERROR"), "{}", raised[0]);
    assert_eq!(
        log.lines_with("the head-blocked alert is cleared").len(),
        1,
        "{}",
        log.text()
    );
}

/// The optional bypass rule (`pump.bypass_after_secs`): a head whose own
/// attempts keep failing while the servers answer is recorded DEAD
/// (`BYPASSED`) past the limit, written back, and the message behind it
/// applies. The failure is injected (a failpoint fails every write of the
/// event): a real server cannot be made to fail one message's writes alone.
#[cfg(feature = "failpoints")]
#[test]
fn under_the_bypass_rule_a_head_whose_own_attempts_fail_is_dead_and_the_queue_moves_on() {
    use common::log::Captured;
    use flightstate::failpoint::{self, Action};

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("head_bypass");
    let head = mb.insert(&flop_sent("AODB", "000001", at(9, 9, 0), 1));
    let behind = mb.insert(&flop_sent("AODB", "000002", at(9, 9, 1), 1));
    let limit = Duration::from_secs(2);
    let mut pump = new_pump(
        &db,
        &mb,
        PumpSettings {
            head_blocked_alert: Duration::from_secs(3600),
            bypass_after: Some(limit),
            group_commit: 1,
            ..pump_settings("evidence")
        },
    );
    let log = Captured::default();
    log.during(|| {
        failpoint::arm("event.before_write", Action::Error, u32::MAX);
        let started = Instant::now();
        loop {
            assert!(
                started.elapsed() < limit + Duration::from_secs(30),
                "never bypassed: {}",
                log.text()
            );
            match pump.step().expect("step") {
                Step::Blocked {
                    message_id: Some(id),
                    until,
                } if id == head => {
                    std::thread::sleep(until.saturating_duration_since(Instant::now()))
                }
                Step::Progress { .. } => break,
                other => panic!("the head is blocked, then bypassed: {other:?}"),
            }
        }
        assert!(started.elapsed() >= limit, "not before the limit");
        assert!(failpoint::fired("event.before_write") >= 3);
        failpoint::disarm_all();
        drain(&mut pump);
    });
    let states = proc_states(&mut db.connect());
    assert_eq!(
        states
            .iter()
            .map(|s| (s.0, s.1.as_str(), s.2.as_deref()))
            .collect::<Vec<_>>(),
        [
            (head, "DEAD", Some("BYPASSED")),
            (behind, "SUCCEEDED", None)
        ]
    );
    let rows = mb.rows();
    assert_eq!(
        rows.iter().find(|r| r.0 == head).map(|r| r.1.as_deref()),
        Some(Some("DEAD")),
        "{rows:?}"
    );
    mb.assert_each_written_back_once();
    let said = log.lines_with("the head is BYPASSED");
    assert_eq!(said.len(), 1, "{}", log.text());
    assert!(said[0].contains("ERROR"), "{}", said[0]);
}
