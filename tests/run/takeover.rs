//! Two `flightstate run` processes on the same state database, mailbox and
//! broker (an active and a standby, `pump.lease_secs` = 3), the active one
//! killed with SIGKILL in the middle of a stream that is still being
//! queued, against real PostgreSQL, MariaDB and tansu:
//!
//! - the standby takes the lease within the lease time (plus slack), at a
//!   higher epoch, and finishes the stream and the outbox by itself;
//! - the end equals a clean run's: the state dump (versions included, so
//!   no message applied twice), `PROC_STATE` with its attempts, the mailbox
//!   statuses, every row written back exactly once (a trigger counts);
//! - a takeover is not a redelivery: no row is journaled for a second
//!   write-back (no `CONFLICT` call), no "came again" line;
//! - the old epoch commits nothing after the takeover: every write-back of
//!   a message committed after it was granted under the new epoch
//!   (`EFFECT_CALL.LEASE_EPOCH`; `PROC_STATE` and the outbox do not record
//!   an epoch);
//! - on the state topic each flight's versions never go down, and its last
//!   message is its stored state document.

use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::{QueryableByName, RunQueryDsl};

use crate::common::sis::day_messages;
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{tansu, topics};
use crate::pumping::{MailboxDatabase, effect_calls, outcome};
use crate::running::{
    LEASE, RunChild, RunSetup, assert_topic_matches_state, clean_run, finished, lease,
};

const FLIGHTS: usize = 20;
/// Time allowed after the lease runs out for the standby to take it (its
/// `pump.idle_poll_ms`, a loaded machine).
const SLACK: Duration = Duration::from_secs(7);

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
}

fn committed(db: &TestDatabase) -> BTreeSet<i64> {
    let mut conn = db.connect();
    diesel::sql_query("SELECT message_id FROM proc_state")
        .load::<Id>(&mut conn)
        .expect("read PROC_STATE")
        .into_iter()
        .map(|r| r.message_id)
        .collect()
}

#[derive(QueryableByName)]
struct Call {
    #[diesel(sql_type = Text)]
    target: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    lease_epoch: Option<i64>,
}

/// `(message id, grant epoch)` of every mailbox write-back in the journal.
fn write_back_epochs(db: &TestDatabase) -> Vec<(i64, Option<i64>)> {
    let mut conn = db.connect();
    diesel::sql_query(
        "SELECT target, lease_epoch FROM effect_call WHERE target LIKE 'cminmsgs:%' \
         ORDER BY call_id",
    )
    .load::<Call>(&mut conn)
    .expect("read the journal")
    .into_iter()
    .map(|c| {
        let id = c
            .target
            .trim_start_matches("cminmsgs:")
            .parse()
            .expect("a mailbox id");
        (id, c.lease_epoch)
    })
    .collect()
}

#[test]
fn the_standby_takes_over_from_a_killed_active_process_and_ends_as_a_clean_run() {
    let messages = day_messages(FLIGHTS);
    let half = messages.len() / 2;
    let expected = clean_run("rt_ref", &messages);

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("rt");
    let topics = topics("run-takeover");
    let setup = |holder: &str| RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: tansu(),
        topics: topics.clone(),
        holder: holder.to_owned(),
        env: Vec::new(),
    };
    let mut first = RunChild::start(&setup("run-a"));
    let mut second = RunChild::start(&setup("run-b"));

    for m in &messages[..half] {
        mb.insert(m);
    }
    assert!(
        eventually(Duration::from_secs(60), || finished(&db, &mb, half)),
        "the first half was not done in 60 s\nfirst:\n{}\nsecond:\n{}",
        first.text(),
        second.text()
    );
    let (holder, old_epoch) = lease(&db);
    let holder = holder.expect("a process holds the lease");
    let (active, standby) = if holder == first.holder {
        (&mut first, &mut second)
    } else {
        assert_eq!(holder, second.holder, "the lease holder is one of the two");
        (&mut second, &mut first)
    };

    // The second half is queued a message at a time, and the active
    // process is killed while it works through it.
    let feeder = {
        let rest: Vec<Vec<u8>> = messages[half..].to_vec();
        let mb_name = mb.name.clone();
        std::thread::spawn(move || {
            let server = mysql::Pool::new(crate::pumping::mariadb_server_url().as_str())
                .expect("connect to MariaDB");
            let mut conn = server.get_conn().expect("a connection");
            mysql::prelude::Queryable::query_drop(&mut conn, format!("USE {mb_name}"))
                .expect("use the mailbox");
            for m in rest {
                mysql::prelude::Queryable::exec_drop(
                    &mut conn,
                    "INSERT INTO cminmsgs (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, \
                     CMINMSGS_STATUS) VALUES (?, NOW(), 'VALID')",
                    (m,),
                )
                .expect("insert a message");
                std::thread::sleep(Duration::from_millis(15));
            }
        })
    };
    let quarter = half + (messages.len() - half) / 4;
    assert!(
        eventually(Duration::from_secs(30), || {
            mb.rows()
                .iter()
                .filter(|(_, _, processed)| *processed)
                .count()
                >= quarter
        }),
        "the active process did not work through the second half:\n{}",
        active.text()
    );
    let status = active.kill();
    let killed_at = Instant::now();
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
    let processed_at_kill = mb.rows().iter().filter(|r| r.2).count();
    assert!(
        processed_at_kill < messages.len(),
        "killed after the end of the stream, not in its middle"
    );

    let mut new_lease = (None, old_epoch);
    let took_over = eventually(LEASE + SLACK, || {
        new_lease = lease(&db);
        new_lease.0.as_deref() == Some(standby.holder.as_str())
    });
    let takeover = killed_at.elapsed();
    assert!(
        took_over,
        "the standby did not take the lease within {:?} of the kill: {new_lease:?}\n{}",
        LEASE + SLACK,
        standby.text()
    );
    let new_epoch = new_lease.1;
    assert!(new_epoch > old_epoch, "{new_epoch} after {old_epoch}");
    // Committed so far; whatever commits from now on does so under the
    // standby's lease (the takeover waited for any transaction the killed
    // process left on the server).
    let before_takeover = committed(&db);

    feeder.join().expect("the feeder");
    assert!(
        eventually(Duration::from_secs(60), || finished(
            &db,
            &mb,
            messages.len()
        )),
        "the standby did not finish the stream in 60 s:\n{}",
        standby.text()
    );
    assert!(standby.is_running(), "{}", standby.text());
    let said = standby
        .first_saying(killed_at, "took the pump lease")
        .expect("the standby says it took the lease");
    assert_eq!(said.1["fields"]["lease.epoch"], new_epoch, "{}", said.1);
    eprintln!(
        "killed with {processed_at_kill} of {} rows written back; the standby took the lease \
         {takeover:?} after the kill (epoch {old_epoch} -> {new_epoch}); {} messages \
         committed after the takeover",
        messages.len(),
        messages.len() - before_takeover.len()
    );

    let later: Vec<(i64, Option<i64>)> = write_back_epochs(&db)
        .into_iter()
        .filter(|(id, _)| !before_takeover.contains(id))
        .collect();
    assert!(
        !later.is_empty(),
        "nothing was committed after the takeover"
    );
    let stale: Vec<&(i64, Option<i64>)> = later
        .iter()
        .filter(|(_, epoch)| epoch.is_none_or(|e| e < new_epoch))
        .collect();
    assert!(
        stale.is_empty(),
        "write-backs of messages committed after the takeover granted under an old epoch: \
         {stale:?}"
    );

    // The killed process's last committed messages were awaiting their
    // write-backs, which the standby's effect worker made: none of them is
    // taken for a row delivered again, nor written back a second time.
    let redelivered = standby.first_saying(killed_at, "came again after its write-back");
    assert!(
        redelivered.is_none(),
        "a takeover is not a redelivery: {redelivered:?}"
    );
    let refused: Vec<_> = effect_calls(&mut db.connect())
        .into_iter()
        .filter(|(_, status, _)| status == "CONFLICT")
        .collect();
    assert!(refused.is_empty(), "no write-back refused: {refused:?}");

    let standby_holder = standby.holder.clone();
    let (run_a, run_b) = if standby_holder == first.holder {
        (first, second)
    } else {
        (second, first)
    };
    run_a.stop();
    drop(run_b);
    mb.assert_each_written_back_once();
    assert_eq!(
        outcome(&mut db.connect(), &mb),
        expected,
        "the same end as a clean run"
    );
    assert_topic_matches_state(&tansu(), &topics.0, &db);
}
