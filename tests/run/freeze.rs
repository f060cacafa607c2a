//! Two `flightstate run` processes on one state database, mailbox and
//! broker, the lease holder frozen (`SIGSTOP`) at each place where it holds
//! something the standby needs, against real PostgreSQL, MariaDB and tansu.
//! The holder runs with a `park` failpoint at that place: it stops there
//! and says so, the test freezes the whole process, and the failpoint lets
//! it go on after `SIGCONT` (`failpoint::Action::Park`).
//!
//! - inside a snapshot's transaction and inside a group's (holding
//!   `PIPELINE_LOCK`): the server ends the frozen transaction after
//!   `pump.lease_secs` idle, and the standby takes the lease within the
//!   lease plus its one-second look and one statement's time;
//! - before a dispatcher pass produces what it claimed: the standby takes
//!   the lease and applies the stream; the frozen pass keeps its flights'
//!   outbox rows until it wakes, then produces nothing (its claim is too
//!   old), and no flight's version goes down on the state topic, although
//!   the other lane's pass froze with messages handed to librdkafka;
//! - inside a mailbox write-back's transaction (row locks on `CMINMSGS`):
//!   MariaDB ends it after the lease idle, and the standby writes those
//!   rows back.
//!
//! In every case the standby applies and writes back the whole stream while
//! the holder is still frozen; after `SIGCONT` the woken process changes
//! nothing it no longer owns (it loses the lease), both outboxes drain,
//! every mailbox row is written back once, the end equals a clean run's and
//! the topic holds each flight's stored state with no version going down.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::TestDatabase;
use crate::common::eventually;
use crate::common::sis::day_messages;
use crate::dispatching::{tansu, topics};
use crate::pumping::{MailboxDatabase, Outcome, outcome};
use crate::running::{
    DELIVERY_TIMEOUT, IO_TIMEOUT, LEASE, LINGER, RunChild, RunSetup, assert_topic_matches_state,
    clean_run, finished, lease,
};

const FLIGHTS: usize = 20;
/// A standby looks at the lease once a second (`docs/pump.md`).
const STANDBY_LOOK: Duration = Duration::from_secs(1);
/// A journal transaction of the frozen process that was waiting for
/// `PIPELINE_LOCK` takes it when the pump's frozen transaction ends, and is
/// ended itself after `journal::BOOKKEEPING_IDLE_LIMIT`.
const BOOKKEEPING: Duration = flightstate::journal::BOOKKEEPING_IDLE_LIMIT;
/// The clean run of the day, shared by the cases.
fn expected() -> &'static Outcome {
    static EXPECTED: OnceLock<Outcome> = OnceLock::new();
    EXPECTED.get_or_init(|| clean_run("rf_ref", &day_messages(FLIGHTS)))
}

/// Freezes the holder at `point` and checks everything the module doc says.
fn freeze_the_holder_at(point: &str, tag: &str) {
    let messages = day_messages(FLIGHTS);
    let expected = expected();
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let topics = topics(&format!("run-freeze-{tag}"));
    let setup = |holder: &str, env: Vec<(String, String)>| RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: tansu(),
        topics: topics.clone(),
        holder: holder.to_owned(),
        env,
    };

    // The holder first, alone, so that the failpoint is the lease holder's.
    let frozen = RunChild::start(&setup(
        "frozen",
        vec![("FLIGHTSTATE_FAILPOINTS".to_owned(), format!("{point}=park"))],
    ));
    assert!(
        eventually(Duration::from_secs(30), || lease(&db).0.as_deref()
            == Some("frozen")),
        "the first process did not take the lease:\n{}",
        frozen.text()
    );
    let old_epoch = lease(&db).1;
    let standby = RunChild::start(&setup("standby", Vec::new()));
    // Queued from a thread of its own, so that the holder is frozen as soon
    // as it parks, whatever is still being queued.
    let parked = format!("failpoint `{point}`: parked");
    let frozen_at = std::thread::scope(|scope| {
        scope.spawn(|| {
            for m in &messages {
                mb.insert(m);
            }
        });
        assert!(
            eventually(Duration::from_secs(60), || frozen.text().contains(&parked)),
            "the holder never reached {point}:\n{}",
            frozen.text()
        );
        signal(&frozen, libc::SIGSTOP);
        Instant::now()
    });

    // The lease runs out within one lease of the freeze, and the server
    // ends the frozen transaction after one lease idle (and a journal
    // transaction queued behind it after its own limit): the standby takes
    // over at its next look, within one statement's time.
    let bound = LEASE + BOOKKEEPING + STANDBY_LOOK + IO_TIMEOUT;
    let took_over = eventually(bound, || lease(&db).0.as_deref() == Some("standby"));
    let takeover = frozen_at.elapsed();
    assert!(
        took_over,
        "the standby did not take the lease within {bound:?} of the freeze at {point}: {:?}\n{}",
        lease(&db),
        standby.text()
    );
    let new_epoch = lease(&db).1;
    assert!(new_epoch > old_epoch, "{new_epoch} after {old_epoch}");

    // The whole stream, by the standby alone: the frozen process holds
    // nothing any more that the pump needs. (A frozen dispatcher pass keeps
    // its flights' outbox rows until it wakes, by design: `docs/pump.md`.)
    let bound = Duration::from_secs(60);
    assert!(
        eventually(bound, || mb.all_written_back(messages.len())),
        "the standby did not apply and write back the stream within {bound:?} while the holder \
         was frozen at {point}:\n{}",
        standby.text()
    );
    let finished_at = frozen_at.elapsed();
    if point == "dispatch.before_produce" {
        // A pass woken within one report wait of its claim may still
        // produce (its rows stayed locked); the freeze under test is a
        // longer one, after which it must not.
        let report_wait = DELIVERY_TIMEOUT + LINGER + Duration::from_secs(5);
        while frozen_at.elapsed() <= report_wait {
            std::thread::sleep(report_wait.saturating_sub(frozen_at.elapsed()));
        }
    }

    let woken_at = Instant::now();
    signal(&frozen, libc::SIGCONT);
    // Woken, it finds the lease gone at its next step (renewal, or the
    // fence of its next transaction): it stops pumping and says so.
    let bound = LEASE + IO_TIMEOUT * 2;
    assert!(
        eventually(bound, || frozen
            .first_saying(woken_at, "lost the pump lease")
            .is_some()),
        "the woken process did not see that it lost the lease within {bound:?}:\n{}",
        frozen.text()
    );
    eprintln!(
        "frozen at {point}: the standby took the lease {takeover:?} after the freeze (lease \
         {LEASE:?}, epoch {old_epoch} -> {new_epoch}) and wrote back the whole stream \
         {finished_at:?} after it"
    );
    if point == "dispatch.before_produce" {
        // The woken pass gives its claim up instead of producing it.
        let gave_up = || {
            frozen
                .events()
                .iter()
                .any(|(at, event)| *at >= woken_at && event.to_string().contains("held its claim"))
        };
        assert!(
            eventually(IO_TIMEOUT, gave_up),
            "the woken pass did not give up the claim it made before the freeze:\n{}",
            frozen.text()
        );
    }

    // Whatever the woken process still had in hand settled, both outboxes
    // drain.
    assert!(
        eventually(Duration::from_secs(30), || finished(
            &db,
            &mb,
            messages.len()
        )),
        "after the thaw:\n{}",
        standby.text()
    );
    frozen.stop();
    standby.stop();
    mb.assert_each_written_back_once();
    assert_eq!(
        &outcome(&mut db.connect(), &mb),
        expected,
        "the same end as a clean run"
    );
    assert_topic_matches_state(&tansu(), &topics.0, &db);
}

fn signal(child: &RunChild, signal: libc::c_int) {
    let pid = libc::pid_t::try_from(child.pid()).expect("a pid");
    // SAFETY: kill(2) on our own child's pid with a valid signal number.
    let done = unsafe { libc::kill(pid, signal) };
    assert_eq!(done, 0, "signal {signal} to {pid}");
}

#[test]
fn a_holder_frozen_inside_a_snapshot_gives_way_within_its_lease() {
    freeze_the_holder_at("snapshot.before_commit", "rf_snap");
}

#[test]
fn a_holder_frozen_inside_a_group_commit_gives_way_within_its_lease() {
    freeze_the_holder_at("group.before_commit", "rf_group");
}

#[test]
fn a_dispatcher_frozen_between_its_claim_and_its_produce_sends_nothing_stale() {
    freeze_the_holder_at("dispatch.before_produce", "rf_claim");
}

#[test]
fn a_holder_frozen_inside_a_write_back_gives_its_rows_up() {
    freeze_the_holder_at("write_back.before_commit", "rf_wb");
}
