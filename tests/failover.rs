//! The state database fails over to its streaming standby under a running
//! pump (docs/operations.md, "After a failover"), against two PostgreSQL
//! clusters of the test's own (a primary and a standby made with
//! `pg_basebackup -R`, on ports of their own, their folders owned by
//! `postgres`), the shared MariaDB and the tansu broker. flightstate reaches
//! the database through one multi-host URL (`host1:port1,host2:port2` with
//! `target_session_attrs=read-write`) and never changes a setting.
//!
//! - **Asynchronous**: the standby is cut off from the primary's WAL
//!   (its `primary_conninfo` emptied and reloaded: a paused replay would
//!   not do, since a promotion replays what the standby received) before
//!   the last part of the stream is pumped and dispatched; the primary is
//!   killed and the standby promoted. The same pump, through the same URL,
//!   names the lost tail and stops; the catch-up re-applies it; the end
//!   state is a clean run's, each mailbox row was written back once, and a
//!   consumer keeping the highest version per FLID holds the database
//!   without any FLID's version going down.
//! - **Synchronous**: the standby confirms every commit; after the same
//!   failover nothing is lost, nothing is caught up, the pump goes on.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::collections::{BTreeMap, HashMap};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use common::private_pg::{account, bin_dir, hand_over};
use common::server::{Folder, ServerProcess, free_port, set_up};
use common::sis::{day_messages, site_settings};
use diesel::connection::SimpleConnection;
use diesel::sql_types::{BigInt, Bool};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl};
use dispatching::{Record, kafka, read_all, rebuild, stored, tansu, tansu_dispatcher};
use flightstate::dispatch::Dispatcher;
use flightstate::kafka::KafkaClient;
use flightstate::lost_tail::{CatchUpSettings, catch_up, detect};
use flightstate::mailbox::Mailbox;
use flightstate::pump::{Pump, PumpSettings};
use flightstate::resync::ResyncSettings;
use flightstate::store::pg::{PgStore, run_pending_migrations};
use pumping::pg::{drain, mailbox};
use pumping::{MailboxDatabase, proc_states, pump_settings};

/// How the standby confirms the primary's commits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Replication {
    Asynchronous,
    Synchronous,
}

/// One cluster: its folder and port; running while `process` is.
struct Cluster {
    process: Option<ServerProcess>,
    port: u16,
}

/// A primary and its streaming standby, in one folder owned by `postgres`.
struct Pair {
    // Dropped in this order: the servers stop before their folder goes.
    primary: Cluster,
    standby: Cluster,
    folder: Folder,
}

fn as_postgres(folder: &Path, program: &str) -> Command {
    let (uid, gid) = account("postgres");
    let mut command = Command::new(bin_dir().join(program));
    command.uid(uid).gid(gid).current_dir(folder);
    command
}

fn socket_url(folder: &Path, port: u16, database: &str) -> String {
    format!(
        "postgres:///{database}?host={}&port={port}&user=postgres",
        folder.display()
    )
}

#[derive(QueryableByName)]
struct Flag {
    #[diesel(sql_type = Bool)]
    flag: bool,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

impl Pair {
    #[track_caller]
    fn start(replication: Replication) -> Pair {
        let folder = Folder::new("failover");
        hand_over(folder.path(), account("postgres"), 0o700);
        let data = folder.path().join("primary");
        let mut init = as_postgres(folder.path(), "initdb");
        init.args([
            "--no-sync",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        ])
        .args(["-U", "postgres", "-D"])
        .arg(&data);
        set_up(init, "initdb");
        std::fs::write(
            data.join("pg_hba.conf"),
            "local all all trust\nhost all all 127.0.0.1/32 trust\n\
             host replication all 127.0.0.1/32 trust\n",
        )
        .expect("write pg_hba.conf");
        let port = free_port();
        let mut settings = vec!["wal_level=replica".to_owned()];
        if replication == Replication::Synchronous {
            settings.push("synchronous_standby_names=standby".to_owned());
        }
        let primary = Cluster::run(folder.path(), data, port, &settings);

        let standby_data = folder.path().join("standby");
        let mut base = as_postgres(folder.path(), "pg_basebackup");
        base.args(["-h", "127.0.0.1", "-p", &port.to_string(), "-U", "postgres"])
            .args(["--no-sync", "-R", "-D"])
            .arg(&standby_data);
        set_up(base, "pg_basebackup");
        // `-R` wrote the standby's `primary_conninfo`; this one names it, so
        // that a synchronous primary waits for it.
        let auto = standby_data.join("postgresql.auto.conf");
        let mut conf = std::fs::read_to_string(&auto).expect("postgresql.auto.conf");
        conf.push_str(&format!(
            "primary_conninfo = 'host=127.0.0.1 port={port} user=postgres application_name=standby'\n"
        ));
        std::fs::write(&auto, conf).expect("write postgresql.auto.conf");
        let standby = Cluster::run(folder.path(), standby_data, free_port(), &[]);
        let pair = Pair {
            primary,
            standby,
            folder,
        };
        pair.wait_until_streaming();
        pair
    }

    /// The URL flightstate is given: both hosts, the one that takes writes
    /// chosen by libpq.
    fn url(&self) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/flightstate?target_session_attrs=read-write",
            self.primary.port, self.standby.port
        )
    }

    fn admin(&self, cluster: &Cluster, database: &str) -> PgConnection {
        PgConnection::establish(&socket_url(self.folder.path(), cluster.port, database))
            .unwrap_or_else(|e| panic!("connect to {database} on port {}: {e}", cluster.port))
    }

    /// Waits until the primary streams to the standby.
    #[track_caller]
    fn wait_until_streaming(&self) {
        let mut admin = self.admin(&self.primary, "postgres");
        wait(
            &format!("the standby streams:\n{}", self.standby.log()),
            || {
                diesel::sql_query(
                    "SELECT count(*) AS n FROM pg_stat_replication WHERE state = 'streaming'",
                )
                .get_result::<Count>(&mut admin)
                .is_ok_and(|c| c.n == 1)
            },
        );
    }

    /// Waits until the standby replayed everything the primary wrote.
    #[track_caller]
    fn wait_until_replayed(&self) {
        let mut admin = self.admin(&self.primary, "postgres");
        wait("the standby replays the primary's WAL", || {
            diesel::sql_query(
                "SELECT coalesce(bool_and(replay_lsn >= pg_current_wal_lsn()), false) AS flag \
                 FROM pg_stat_replication",
            )
            .get_result::<Flag>(&mut admin)
            .is_ok_and(|f| f.flag)
        });
    }

    /// Cuts the standby off the primary's WAL: its `primary_conninfo`
    /// emptied and reloaded, the WAL receiver gone.
    #[track_caller]
    fn cut_standby(&self) {
        let mut standby = self.admin(&self.standby, "postgres");
        // ALTER SYSTEM runs outside a transaction block: a statement alone.
        standby
            .batch_execute("ALTER SYSTEM SET primary_conninfo = ''")
            .expect("empty primary_conninfo");
        standby
            .batch_execute("SELECT pg_reload_conf()")
            .expect("reload the standby's settings");
        let mut primary = self.admin(&self.primary, "postgres");
        wait("the standby stops streaming", || {
            diesel::sql_query("SELECT count(*) AS n FROM pg_stat_replication")
                .get_result::<Count>(&mut primary)
                .is_ok_and(|c| c.n == 0)
        });
    }

    /// Kills the primary (immediate shutdown: no checkpoint, sessions cut)
    /// and promotes the standby.
    #[track_caller]
    fn fail_over(&mut self) {
        drop(self.primary.process.take());
        let mut standby = self.admin(&self.standby, "postgres");
        standby
            .batch_execute("SELECT pg_promote(true, 60)")
            .expect("promote the standby");
        wait("the standby is promoted", || {
            diesel::sql_query("SELECT NOT pg_is_in_recovery() AS flag")
                .get_result::<Flag>(&mut standby)
                .is_ok_and(|f| f.flag)
        });
    }
}

impl Cluster {
    #[track_caller]
    fn run(folder: &Path, data: PathBuf, port: u16, settings: &[String]) -> Cluster {
        let mut server = as_postgres(folder, "postgres");
        server.arg("-D").arg(&data).args(["-p", &port.to_string()]);
        server.arg("-k").arg(folder);
        for setting in [
            "listen_addresses=127.0.0.1",
            "fsync=off",
            "shared_buffers=16MB",
            "max_wal_senders=4",
        ]
        .into_iter()
        .map(str::to_owned)
        .chain(settings.iter().cloned())
        {
            server.args(["-c", &setting]);
        }
        let name = data
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // SIGQUIT: the immediate shutdown, as a crash leaves the cluster.
        let mut process = ServerProcess::start(
            server,
            "postgres",
            folder.join(format!("{name}.log")),
            libc::SIGQUIT,
        );
        let url = socket_url(folder, port, "postgres");
        process.wait_until_ready(|| PgConnection::establish(&url).is_ok());
        Cluster {
            process: Some(process),
            port,
        }
    }

    fn log(&self) -> String {
        self.process
            .as_ref()
            .map(ServerProcess::log)
            .unwrap_or_default()
    }
}

/// Waits until `done`, for at most a minute: a liveness bound, never a
/// measure.
#[track_caller]
fn wait(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "not within a minute: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn site_pump(holder: &str) -> PumpSettings {
    PumpSettings {
        lease_ttl: Duration::from_secs(5),
        ..pump_settings(holder)
    }
}

/// Each stored flight without its version and time (the catch-up's resync
/// raises versions above the topic's).
fn contents(store: &PgStore, conn: &mut PgConnection) -> BTreeMap<i64, serde_json::Value> {
    stored(store, conn)
        .into_iter()
        .map(|(flid, flight)| {
            let mut json = serde_json::to_value(&flight).expect("a flight as JSON");
            if let Some(fields) = json.as_object_mut() {
                fields.remove("STATE_VERSION");
                fields.remove("UPDATED_AT");
            }
            (flid, json)
        })
        .collect()
}

#[track_caller]
fn assert_no_version_goes_down(records: &[Record]) {
    let mut by_flid: HashMap<i64, Vec<i64>> = HashMap::new();
    for record in records {
        let json = record.json();
        let flid = json["FLID"].as_i64().expect("FLID");
        let version = json["STATE_VERSION"].as_i64().expect("STATE_VERSION");
        by_flid.entry(flid).or_default().push(version);
    }
    for (flid, versions) in by_flid {
        assert!(
            versions.windows(2).all(|pair| pair[1] >= pair[0]),
            "FLID {flid}: a version went down on the topic: {versions:?}"
        );
    }
}

/// What a run leaves: each flight's contents, and `PROC_STATE`.
type EndState = (
    BTreeMap<i64, serde_json::Value>,
    Vec<(i64, String, Option<String>, i64)>,
);

/// A clean run of `messages` on the shared server: the end state to reach.
fn clean_run(messages: &[Vec<u8>]) -> EndState {
    let db = common::TestDatabase::migrated();
    let mb = MailboxDatabase::create("failover_clean");
    for message in messages {
        mb.insert(message);
    }
    let store = PgStore::from_pool(db.pool());
    let mut pump = Pump::new(
        store.clone(),
        mailbox(mb.url()),
        site_settings(),
        site_pump("clean"),
    );
    drain(&mut pump);
    pump.release();
    (
        contents(&store, &mut db.connect()),
        proc_states(&mut db.connect()),
    )
}

/// The pair with the test's database migrated on the primary, reached by
/// a store through the multi-host URL.
fn migrated_pair(replication: Replication) -> (Pair, PgStore) {
    let pair = Pair::start(replication);
    pair.admin(&pair.primary, "postgres")
        .batch_execute("CREATE DATABASE flightstate")
        .expect("create the database");
    run_pending_migrations(&pair.url()).expect("migrate through the multi-host URL");
    let store = PgStore::connect(&pair.url(), 4, Duration::from_secs(10))
        .expect("a pool through the multi-host URL");
    (pair, store)
}

#[test]
fn an_asynchronous_standby_promoted_loses_the_tail_and_the_pump_catches_it_up() {
    let messages = day_messages(30);
    let cut_at = messages.len() * 2 / 3;
    let (clean_contents, clean_proc) = clean_run(&messages);

    let (mut pair, store) = migrated_pair(Replication::Asynchronous);
    let mb = MailboxDatabase::create("failover_async");
    let mailbox: Arc<Mailbox> = mailbox(mb.url());
    let (mut dispatcher, topics) = tansu_dispatcher(store.clone(), "failover-async");
    let mut pump = Pump::new(
        store.clone(),
        Arc::clone(&mailbox),
        site_settings(),
        site_pump("site"),
    );
    for message in &messages[..cut_at] {
        mb.insert(message);
    }
    drain(&mut pump);
    dispatching::drain(&mut dispatcher);
    pair.wait_until_replayed();

    pair.cut_standby();
    for message in &messages[cut_at..] {
        mb.insert(message);
    }
    drain(&mut pump);
    dispatching::drain(&mut dispatcher);
    assert!(mb.all_written_back(messages.len()));
    pair.fail_over();

    // The same pump, through the same URL: it names the tail and stops.
    let stop = AtomicBool::new(false);
    let summary = pump.run(&stop, true).expect("no failpoint armed");
    let tail = summary.lost_tail.expect("the pump stops at the lost tail");
    let lost = messages.len() - cut_at;
    assert_eq!(
        usize::try_from(tail.written_back).expect("a count"),
        lost,
        "{}",
        tail.describe()
    );
    assert_eq!(
        detect(&store, &mailbox)
            .expect("look")
            .map(|t| t.written_back),
        Some(tail.written_back)
    );

    let settings = CatchUpSettings {
        pump: site_pump("catch-up"),
        rules: site_settings(),
        resync: ResyncSettings {
            topic_stall: Duration::from_secs(30),
            ..ResyncSettings::new(topics.clone(), Duration::from_secs(15))
        },
    };
    let report = catch_up(
        &store,
        &mailbox,
        &KafkaClient::new(tansu()),
        &settings,
        Some(tail),
        &stop,
    )
    .expect("caught up");
    assert_eq!((report.rows, report.applied), (lost, lost));
    assert_eq!(report.write_backs_found, lost);
    assert_eq!(detect(&store, &mailbox).expect("look"), None);

    drain(&mut pump);
    pump.release();
    let mut dispatcher = Dispatcher::new(
        store.clone(),
        kafka(&tansu()),
        dispatching::settings(&topics),
    )
    .expect("dispatcher");
    dispatching::drain(&mut dispatcher);

    let mut conn = pair.admin(&pair.standby, "flightstate");
    assert_eq!(contents(&store, &mut conn), clean_contents);
    assert_eq!(proc_states(&mut conn), clean_proc);
    mb.assert_each_written_back_once();
    let records = read_all(&tansu(), &topics.0);
    assert_no_version_goes_down(&records);
    assert_eq!(
        rebuild(&records),
        stored(&store, &mut conn),
        "the consumer holds what the database holds"
    );
}

#[test]
fn a_synchronous_standby_promoted_loses_nothing_and_catches_up_nothing() {
    let messages = day_messages(20);
    let (clean_contents, clean_proc) = clean_run(&messages);
    let (mut pair, store) = migrated_pair(Replication::Synchronous);
    let mb = MailboxDatabase::create("failover_sync");
    let mailbox: Arc<Mailbox> = mailbox(mb.url());
    let (mut dispatcher, topics) = tansu_dispatcher(store.clone(), "failover-sync");
    let mut pump = Pump::new(
        store.clone(),
        Arc::clone(&mailbox),
        site_settings(),
        site_pump("site"),
    );
    let half = messages.len() / 2;
    for message in &messages[..half] {
        mb.insert(message);
    }
    drain(&mut pump);
    dispatching::drain(&mut dispatcher);
    pair.fail_over();
    assert_eq!(detect(&store, &mailbox).expect("look"), None);

    // The same pump goes on through the same URL, on the promoted standby.
    for message in &messages[half..] {
        mb.insert(message);
    }
    let summary = pump
        .run(&AtomicBool::new(false), true)
        .expect("no failpoint armed");
    assert_eq!(summary.lost_tail, None);
    assert_eq!(summary.messages, messages.len() - half);
    pump.release();
    dispatching::drain(&mut dispatcher);

    let mut conn = pair.admin(&pair.standby, "flightstate");
    assert_eq!(contents(&store, &mut conn), clean_contents);
    assert_eq!(proc_states(&mut conn), clean_proc);
    mb.assert_each_written_back_once();
    let records = read_all(&tansu(), &topics.0);
    assert_no_version_goes_down(&records);
    assert_eq!(rebuild(&records), stored(&store, &mut conn));
}
