//! A pump whose lease is taken over in the middle of a message stops at
//! once, against real MariaDB and PostgreSQL, in process: pump A is stopped
//! inside a transaction, its lease runs out, pump B takes over and applies
//! the message, then A goes on. A's transaction is refused by the fence
//! and A begins no other: no "lost version race" retry, no FAILED record,
//! no one-by-one replay of a group. The message is B's alone, and A says
//! once that it lost the lease and why.

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::RunQueryDsl;
use flightstate::pipeline::Rules;
use flightstate::pump::{Pump, Step};
use flightstate::store::pg::PgStore;

use crate::common::TestDatabase;
use crate::common::log::Captured;
use crate::common::sis::{at, flight, flop, parse_options, sep, snapshot};
use crate::pumping::pg::{Gate, PausingStore, TwoPumps, two_pumps};
use crate::pumping::{MailboxDatabase, proc_states};

fn pipeline() -> Rules {
    Rules {
        parse: parse_options(),
        ..Rules::default()
    }
}

/// What became of pump A, taken over inside its `nth` transaction.
struct TakenOver {
    db: TestDatabase,
    mb: MailboxDatabase,
    ids: Vec<i64>,
    pump_a: Pump<PausingStore>,
    pump_b: Pump<PgStore>,
    gate: Arc<Gate>,
    /// A's step that met the takeover.
    step_a: Step,
    /// Transactions A began in that step up to and including the one it
    /// was stopped in.
    begun_at_pause: usize,
    epoch_b: i64,
    log_a: Captured,
}

/// Queues `bodies`; pump A (applying with `pipeline_a`) is stopped right
/// after the BEGIN of its `nth` transaction for them; its lease runs out,
/// pump B takes over and applies them all; then A goes on.
fn taken_over(tag: &str, bodies: &[Vec<u8>], nth: usize, pipeline_a: Rules) -> TakenOver {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let TwoPumps {
        a: mut pump_a,
        b: mut pump_b,
        gate,
        control,
        epoch_a,
    } = two_pumps(db.url(), mb.url(), false, pipeline(), pipeline_a);

    let ids: Vec<i64> = bodies.iter().map(|b| mb.insert(b)).collect();
    gate.stop_at(nth);
    let log_a = Captured::default();
    let log = log_a.clone();
    let a = std::thread::spawn(move || {
        let step = log.during(|| pump_a.step().expect("no failpoint armed"));
        (pump_a, step)
    });
    control
        .paused
        .recv_timeout(Duration::from_secs(30))
        .expect("A reaches the transaction it is stopped in");
    let begun_at_pause = gate.begun();

    let mut conn = db.connect();
    diesel::sql_query(
        "UPDATE pipeline_lock SET lease_expires_at = (now() AT TIME ZONE 'UTC') - interval '1 second'",
    )
    .execute(&mut conn)
    .expect("expire A's lease");
    assert_eq!(
        pump_b.step().expect("step"),
        Step::Progress {
            messages: bodies.len()
        },
        "B takes over and applies every message"
    );
    let epoch_b = pump_b.epoch().expect("B holds the lease");
    assert!(epoch_b > epoch_a, "the takeover bumped the epoch");

    control.resume.send(()).expect("resume A");
    let (pump_a, step_a) = a.join().expect("A's thread");
    TakenOver {
        db,
        mb,
        ids,
        pump_a,
        pump_b,
        gate,
        step_a,
        begun_at_pause,
        epoch_b,
        log_a,
    }
}

impl TakenOver {
    /// A stopped at once: the refused transaction was its last, it said so
    /// once, it retried nothing, and it now waits for B's lease.
    #[track_caller]
    fn assert_a_stopped_at_once(&mut self) {
        assert_eq!(self.step_a, Step::LeaseLost, "{}", self.log_a.text());
        assert_eq!(
            self.gate.begun(),
            self.begun_at_pause,
            "A began no transaction after the refused one (no retry, no FAILED record, \
             no renewal): {}",
            self.log_a.text()
        );
        let lost = self.log_a.lines_with("lost the pump lease");
        assert_eq!(lost.len(), 1, "said once: {}", self.log_a.text());
        assert!(
            lost[0].contains("WARN")
                && lost[0].contains("took it over")
                && lost[0].contains(&format!("moved to epoch {}", self.epoch_b)),
            "says why, with the new epoch: {}",
            lost[0]
        );
        for retry in ["version race", "FAILED(", "one by one", "retried"] {
            assert!(
                self.log_a.lines_with(retry).is_empty(),
                "no {retry:?}: {}",
                self.log_a.text()
            );
        }
        assert_eq!(self.pump_a.epoch(), None, "A let its lease go");
        assert_eq!(
            self.pump_a.step().expect("step"),
            Step::Standby,
            "A waits for B's lease"
        );
    }

    /// Each message is B's alone: final once, at its first attempt, and
    /// written back once.
    #[track_caller]
    fn assert_each_message_applied_once_by_b(&mut self, status: &str) {
        let mut conn = self.db.connect();
        let expected: Vec<(i64, String, i64)> =
            self.ids.iter().map(|id| (*id, status.into(), 1)).collect();
        let states: Vec<(i64, String, i64)> = proc_states(&mut conn)
            .into_iter()
            .map(|(id, status, _, attempts)| (id, status, attempts))
            .collect();
        assert_eq!(states, expected, "the messages are B's, untouched by A");
        for _ in 0..100 {
            match self.pump_b.step().expect("step") {
                Step::Idle => break,
                Step::Blocked { until, .. } => {
                    std::thread::sleep(until.saturating_duration_since(Instant::now()))
                }
                Step::Progress { .. } => {}
                other => panic!("B stopped: {other:?}"),
            }
        }
        self.mb.assert_each_written_back_once();
        assert_eq!(
            crate::common::sis::count(
                &mut conn,
                "effect_call",
                &format!("status = 'ACCEPTED' AND lease_epoch = {}", self.epoch_b)
            ),
            i64::try_from(self.ids.len()).expect("few"),
            "every write-back is B's"
        );
    }
}

/// The snapshot of a day of `flights` flights.
fn day(flights: i64) -> Vec<u8> {
    snapshot(
        sep(9),
        (1..=flights).map(|f| flight(f, at(9, 8, 0))).collect(),
    )
}

#[test]
fn a_fenced_snapshot_is_not_retried_as_a_lost_version_race() {
    // A's first transaction looks for a lost tail; the second reads
    // PROC_STATE; the third is the snapshot's.
    let mut run = taken_over("fencesnap", &[day(2)], 3, pipeline());
    run.assert_a_stopped_at_once();
    run.assert_each_message_applied_once_by_b("SUCCEEDED");
    let mut conn = run.db.connect();
    assert_eq!(
        crate::common::sis::count(&mut conn, "schd_gen", "version = 1"),
        1
    );
    assert_eq!(
        crate::common::sis::count(&mut conn, "kafka_schd", "true"),
        2,
        "one event per flight, from B only"
    );
}

#[test]
fn a_fenced_streamed_snapshot_stops_the_pump_too() {
    let streamed = Rules {
        stream_from_bytes: 0,
        stream_part_flights: 1,
        ..pipeline()
    };
    let mut run = taken_over("fencestream", &[day(3)], 3, streamed);
    run.assert_a_stopped_at_once();
    run.assert_each_message_applied_once_by_b("SUCCEEDED");
}

#[test]
fn a_fenced_group_is_not_applied_one_by_one() {
    let bodies = [
        flop("RENO", &[(1, "<RENO>B1</RENO>")]),
        flop("RENO", &[(2, "<RENO>B2</RENO>")]),
        flop("RENO", &[(1, "<RENO>B3</RENO>")]),
    ];
    // The group's one transaction is A's second (after the look for a lost
    // tail).
    let mut run = taken_over("fencegroup", &bodies, 2, pipeline());
    run.assert_a_stopped_at_once();
    run.assert_each_message_applied_once_by_b("SUCCEEDED");
}

#[test]
fn a_fenced_dead_record_is_refused_before_its_commit() {
    // Malformed: A's third transaction (after the look for a lost tail and
    // the read of PROC_STATE) records it DEAD, a transaction the pipeline
    // does not lock; the fence before its commit refuses it.
    let mut run = taken_over("fencedead", &[b"<MSG><META>".to_vec()], 3, pipeline());
    run.assert_a_stopped_at_once();
    run.assert_each_message_applied_once_by_b("DEAD");
}
