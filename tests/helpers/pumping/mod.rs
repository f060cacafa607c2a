//! Test infrastructure for the pump: a MariaDB mailbox database of the test's
//! own (with a trigger that logs every effective write-back, so "written
//! back exactly once" can be counted), a TCP proxy the test can cut to make
//! a server unreachable on cue, or freeze to make the link silent (the
//! servers themselves cannot be stopped from a test), and a normalised dump
//! of the state database for comparing runs.
#![allow(dead_code)]

#[cfg(feature = "postgres")]
pub mod pg;

use std::io::ErrorKind;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use diesel::sql_types::{BigInt, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::mailbox::MailboxSettings;
use mysql::prelude::Queryable;

const MAILBOX_DDL: &str = include_str!("../../../sql/mailbox/aodb_mailbox.sql");

/// The MariaDB server's base URL.
pub fn mariadb_server_url() -> String {
    std::env::var("FLIGHTSTATE_TEST_MARIADB_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_owned())
}

/// A mailbox database of this test's own, dropped with the guard.
pub struct MailboxDatabase {
    server: mysql::Pool,
    pub name: String,
}

impl MailboxDatabase {
    /// Creates the AODB tables and a write-back log filled by a trigger.
    #[track_caller]
    pub fn create(tag: &str) -> MailboxDatabase {
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let server = mysql::Pool::new(mariadb_server_url().as_str())
            .expect("MariaDB must be running (scripts/services)");
        let name = format!("fs_pump_{tag}_{}_{n}", std::process::id());
        let mut conn = server.get_conn().expect("connect to MariaDB");
        // Test database names are the one place identifiers are formatted.
        conn.query_drop(format!("DROP DATABASE IF EXISTS {name}"))
            .expect("drop stale database");
        conn.query_drop(format!("CREATE DATABASE {name} CHARACTER SET utf8mb4"))
            .expect("create database");
        let db = MailboxDatabase { server, name };
        let mut conn = db.conn();
        for statement in MAILBOX_DDL.split(';').filter(|s| {
            s.lines()
                .any(|l| !l.trim().is_empty() && !l.trim().starts_with("--"))
        }) {
            conn.query_drop(statement).expect("mailbox DDL applies");
        }
        conn.query_drop(
            "CREATE TABLE writeback_log (LOG_ID BIGINT AUTO_INCREMENT PRIMARY KEY, \
             MSG_ID BIGINT NOT NULL, STATUS VARCHAR(20))",
        )
        .expect("create the write-back log");
        conn.query_drop(
            "CREATE TRIGGER cminmsgs_writeback AFTER UPDATE ON cminmsgs FOR EACH ROW \
             INSERT INTO writeback_log (MSG_ID, STATUS) VALUES (NEW.CMINMSGS_ID, NEW.CMINMSGS_STATUS)",
        )
        .expect("create the write-back trigger");
        db
    }

    /// A URL for this database on `host_port` (the server, or a proxy).
    pub fn url_via(&self, host_port: &str) -> String {
        // `prefer_socket=false`: on 127.0.0.1 the driver would otherwise
        // switch to the server's Unix socket and bypass the proxy.
        format!("mysql://root@{host_port}/{}?prefer_socket=false", self.name)
    }

    /// A URL for this database on the server itself.
    pub fn url(&self) -> String {
        format!("{}/{}", mariadb_server_url(), self.name)
    }

    /// A direct connection.
    pub fn conn(&self) -> mysql::PooledConn {
        let mut conn = self.server.get_conn().expect("connect to MariaDB");
        conn.query_drop(format!("USE {}", self.name))
            .expect("use test database");
        conn
    }

    /// Inserts a pending message; returns its id.
    pub fn insert(&self, body: &[u8]) -> i64 {
        let mut conn = self.conn();
        conn.exec_drop(
            "INSERT INTO cminmsgs (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, CMINMSGS_STATUS) \
             VALUES (?, NOW(), 'VALID')",
            (body,),
        )
        .expect("insert a message");
        i64::try_from(conn.last_insert_id()).expect("id fits")
    }

    /// Inserts a pending message under an explicit id (a late lower id).
    pub fn insert_with_id(&self, id: i64, body: &[u8]) {
        self.conn()
            .exec_drop(
                "INSERT INTO cminmsgs (CMINMSGS_ID, CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, \
                 CMINMSGS_STATUS) VALUES (?, ?, NOW(), 'VALID')",
                (id, body),
            )
            .expect("insert a message with its id");
    }

    /// `(id, status, processed)` of every row, by id.
    pub fn rows(&self) -> Vec<(i64, Option<String>, bool)> {
        self.conn()
            .query_map(
                "SELECT CMINMSGS_ID, CMINMSGS_STATUS, CMINMSGS_DATE_PROCESSED IS NOT NULL \
                 FROM cminmsgs ORDER BY CMINMSGS_ID",
                |(id, status, processed): (i64, Option<String>, i64)| (id, status, processed != 0),
            )
            .expect("read the mailbox")
    }

    /// Whether the mailbox holds `count` rows, every one written back.
    pub fn all_written_back(&self, count: usize) -> bool {
        let rows = self.rows();
        rows.len() == count && rows.iter().all(|(_, _, processed)| *processed)
    }

    /// How many effective write-backs each row had, by id (rows never
    /// written back are missing).
    pub fn write_back_counts(&self) -> Vec<(i64, i64)> {
        self.conn()
            .query_map(
                "SELECT MSG_ID, COUNT(*) FROM writeback_log GROUP BY MSG_ID ORDER BY MSG_ID",
                |(id, n): (i64, i64)| (id, n),
            )
            .expect("read the write-back log")
    }

    /// How many write-back statements reached the server for each row of
    /// this database, by id, whether they changed the row or not (the
    /// write-back only changes a pending row, so the trigger's count cannot
    /// see a second call). Read from the server's general log, which
    /// [`GeneralLog`] turns on.
    pub fn write_back_statements(&self) -> Vec<(i64, i64)> {
        self.conn()
            .exec_map(
                "SELECT CAST(REGEXP_SUBSTR(REGEXP_SUBSTR(g.argument, 'CMINMSGS_ID = [0-9]+'), '[0-9]+') AS SIGNED) AS id, \
                        COUNT(*) \
                 FROM mysql.general_log g \
                 WHERE g.command_type = 'Execute' \
                   AND g.argument LIKE '%UPDATE cminmsgs%SET CMINMSGS_DATE_PROCESSED%' \
                   AND g.thread_id IN ( \
                       SELECT c.thread_id FROM mysql.general_log c \
                       WHERE c.command_type = 'Connect' AND c.argument LIKE CONCAT('% on ', ?, ' %')) \
                 GROUP BY id ORDER BY id",
                (&self.name,),
                |(id, n): (i64, i64)| (id, n),
            )
            .expect("read the general log")
    }

    /// The server's clock now, as the general log stamps its lines
    /// (`YYYY-MM-DD hh:mm:ss.ffffff`).
    pub fn server_time(&self) -> String {
        self.conn()
            .query_first("SELECT DATE_FORMAT(NOW(6), '%Y-%m-%d %H:%i:%s.%f')")
            .expect("read the server's clock")
            .expect("one row")
    }

    /// How many statements whose text is `LIKE` `pattern` reached the
    /// server from connections to this database in `(from, to]` (moments of
    /// [`MailboxDatabase::server_time`]). Read from the server's general
    /// log, which [`GeneralLog`] turns on before the connections are made.
    pub fn statements_between(&self, pattern: &str, from: &str, to: &str) -> i64 {
        self.conn()
            .exec_first(
                "SELECT COUNT(*) FROM mysql.general_log g \
                 WHERE g.command_type IN ('Query', 'Execute') \
                   AND g.argument LIKE ? \
                   AND g.event_time > ? AND g.event_time <= ? \
                   AND g.thread_id IN ( \
                       SELECT c.thread_id FROM mysql.general_log c \
                       WHERE c.command_type = 'Connect' AND c.argument LIKE CONCAT('% on ', ?, ' %'))",
                (pattern, from, to, &self.name),
            )
            .expect("read the general log")
            .expect("one row")
    }

    /// Asserts every row was written back exactly once.
    #[track_caller]
    pub fn assert_each_written_back_once(&self) {
        let rows = self.rows();
        assert!(
            rows.iter().all(|(_, _, processed)| *processed),
            "a row is still pending: {rows:?}"
        );
        let counts = self.write_back_counts();
        let ids: Vec<i64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(
            counts.iter().map(|c| c.0).collect::<Vec<_>>(),
            ids,
            "write-backs per row"
        );
        assert!(
            counts.iter().all(|(_, n)| *n == 1),
            "a row was written back more than once: {counts:?}"
        );
    }
}

impl Drop for MailboxDatabase {
    fn drop(&mut self) {
        if let Ok(mut conn) = self.server.get_conn() {
            let _ = conn.query_drop(format!("DROP DATABASE IF EXISTS {}", self.name));
        }
    }
}

/// Mailbox settings for tests: short timeouts so a cut server is noticed
/// in seconds.
pub fn mailbox_settings(url: String) -> MailboxSettings {
    MailboxSettings {
        url,
        pending_status: "VALID".to_owned(),
        succeeded_status: "PROCESSED".to_owned(),
        dead_status: "DEAD".to_owned(),
        pool_size: 2,
        connect_timeout: Duration::from_secs(2),
        io_timeout: Duration::from_secs(5),
        idle_in_transaction: None,
    }
}

/// A TCP proxy on 127.0.0.1 in front of a server, that a test can cut
/// (every connection closed, new ones refused) and restore.
pub struct Proxy {
    pub addr: SocketAddr,
    cut: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    sockets: Arc<Mutex<Vec<TcpStream>>>,
    frozen: Mutex<bool>,
    /// Connections closed at once because the link was cut.
    refused: Arc<AtomicUsize>,
    /// When the first connection was refused since the link was last cut.
    first_refused: Arc<Mutex<Option<Instant>>>,
}

impl Proxy {
    /// Starts forwarding to `target` (`host:port`).
    pub fn start(target: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        listener.set_nonblocking(true).expect("non-blocking accept");
        let addr = listener.local_addr().expect("proxy address");
        let cut = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let sockets: Arc<Mutex<Vec<TcpStream>>> = Arc::new(Mutex::new(Vec::new()));
        let refused = Arc::new(AtomicUsize::new(0));
        let first_refused = Arc::new(Mutex::new(None));
        let (c, s, socks, r, first, target) = (
            Arc::clone(&cut),
            Arc::clone(&stop),
            Arc::clone(&sockets),
            Arc::clone(&refused),
            Arc::clone(&first_refused),
            target.to_owned(),
        );
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((client, _)) => {
                        if c.load(Ordering::SeqCst) {
                            let _ = client.shutdown(Shutdown::Both);
                            r.fetch_add(1, Ordering::SeqCst);
                            first
                                .lock()
                                .expect("proxy state")
                                .get_or_insert_with(Instant::now);
                            continue;
                        }
                        let _ = client.set_nonblocking(false);
                        let Ok(server) = TcpStream::connect(&target) else {
                            continue;
                        };
                        let mut list = socks.lock().expect("proxy sockets");
                        for stream in [&client, &server] {
                            if let Ok(clone) = stream.try_clone() {
                                list.push(clone);
                            }
                        }
                        pipe(&client, &server);
                        pipe(&server, &client);
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(_) => break,
                }
            }
        });
        Proxy {
            addr,
            cut,
            stop,
            sockets,
            frozen: Mutex::new(false),
            refused,
            first_refused,
        }
    }

    /// When the proxy first refused a connection since the link was last
    /// cut: the moment a cut met a client.
    pub fn first_refused(&self) -> Option<Instant> {
        *self.first_refused.lock().expect("proxy state")
    }

    /// How many connections the proxy closed as they came because the link
    /// was cut: each one a client that tried to reach the server during
    /// the cut and failed.
    pub fn refused(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }

    /// Segments retransmitted so far on the live TCP sockets of the
    /// client's leg (to or from the proxy's port), read from the kernel
    /// (`ss`, iproute2 like `tc`): on loopback nothing is lost unless the
    /// link is frozen, so a rise across a freeze shows that a client sent
    /// something the freeze swallowed.
    pub fn retransmitted(&self) -> u64 {
        let port = self.addr.port();
        let out = Command::new("ss")
            .args(["-tinH", "state", "all"])
            .arg(format!("( sport = :{port} or dport = :{port} )"))
            .output()
            .expect("run ss (iproute2)");
        assert!(
            out.status.success(),
            "ss: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|word| word.strip_prefix("retrans:"))
            .filter_map(|counts| counts.split_once('/'))
            .map(|(_, total)| total.parse::<u64>().expect("ss: a retransmission count"))
            .sum()
    }

    /// `127.0.0.1:port` of the proxy.
    pub fn host_port(&self) -> String {
        self.addr.to_string()
    }

    /// Closes every connection and refuses new ones.
    pub fn cut(&self) {
        *self.first_refused.lock().expect("proxy state") = None;
        self.cut.store(true, Ordering::SeqCst);
        for socket in self.sockets.lock().expect("proxy sockets").drain(..) {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }

    /// Accepts connections again.
    pub fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }

    /// Freezes the link, on both of its legs: every packet to or from the
    /// proxy's port, and on the proxy's connections to the server, is
    /// dropped by the kernel as it arrives, so the sockets stay open,
    /// nothing is reset, new connections get no answer, and both the
    /// clients and the server see a network that lost their packets (their
    /// retransmissions, keepalive probes and user timeouts run as on a real
    /// dead link). A proxy that merely stopped copying bytes would not do:
    /// its kernel would still acknowledge every segment and probe.
    ///
    /// Uses a classic-BPF `tc` filter on the ingress of `lo` keyed by the
    /// proxy's own ports (so parallel tests do not touch each other's
    /// links); needs `tc` and CAP_NET_ADMIN.
    pub fn freeze(&self) {
        let port = self.addr.port();
        // The listening port (every client connection) and the local port of
        // each connection to the server; the sockets are kept open, so no
        // other connection can have those ports meanwhile.
        let mut ports = vec![port];
        for socket in self.sockets.lock().expect("proxy sockets").iter() {
            if let Ok(local) = socket.local_addr()
                && !ports.contains(&local.port())
            {
                ports.push(local.port());
            }
        }
        // A clsact qdisc on `lo` is shared by every frozen proxy and left in
        // place: it does nothing without filters. "Exclusivity flag on,
        // cannot modify" / "File exists" mean it is there already.
        let _ = Command::new("tc")
            .args(["qdisc", "add", "dev", "lo", "clsact"])
            .output();
        let program = drop_ports_program(&ports);
        let out = Command::new("tc")
            .args(["filter", "add", "dev", "lo", "ingress", "pref"])
            .arg(port.to_string())
            .args(["bpf", "da", "bytecode", &program])
            .output()
            .expect("run tc (freezing a link needs iproute2's tc)");
        assert!(
            out.status.success(),
            "freezing a link needs `tc` and CAP_NET_ADMIN: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        *self.frozen.lock().expect("proxy state") = true;
    }

    /// Lets packets through again; the frozen connections carry on where
    /// they stopped unless a peer gave up on them meanwhile.
    pub fn thaw(&self) {
        let mut frozen = self.frozen.lock().expect("proxy state");
        if *frozen {
            let out = Command::new("tc")
                .args(["filter", "del", "dev", "lo", "ingress", "pref"])
                .arg(self.addr.port().to_string())
                .output()
                .expect("run tc");
            assert!(
                out.status.success(),
                "cannot remove the freezing filter: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            *frozen = false;
        }
    }
}

/// A classic-BPF program for `tc ... bpf da bytecode`: IPv4 over lo's
/// Ethernet header, TCP (protocol 6) segments whose source or destination
/// port is one of `ports` are shot (2); for the rest the filter has no
/// verdict (-1), so that the next filter, of another frozen proxy, still
/// sees them.
fn drop_ports_program(ports: &[u16]) -> String {
    let n = ports.len();
    // Indices of the two returns: no verdict, then shoot.
    let (pass, drop) = (7 + 2 * n, 8 + 2 * n);
    let mut code = vec![
        "40 0 0 12".to_owned(),            // 0: ethertype
        format!("21 0 {} 2048", pass - 2), // 1: IPv4?
        "48 0 0 23".to_owned(),            // 2: IP protocol
        format!("21 0 {} 6", pass - 4),    // 3: TCP?
        "177 0 0 14".to_owned(),           // 4: X = IP header length
        "72 0 0 14".to_owned(),            // 5: source port
    ];
    for (i, port) in ports.iter().enumerate() {
        code.push(format!("21 {} 0 {port}", drop - (6 + i) - 1));
    }
    code.push("72 0 0 16".to_owned()); // destination port
    for (i, port) in ports.iter().enumerate() {
        code.push(format!("21 {} 0 {port}", drop - (7 + n + i) - 1));
    }
    code.push("6 0 0 4294967295".to_owned());
    code.push("6 0 0 2".to_owned());
    format!("{},{}", code.len(), code.join(","))
}

fn pipe(from: &TcpStream, to: &TcpStream) {
    let (Ok(mut from), Ok(mut to)) = (from.try_clone(), to.try_clone()) else {
        return;
    };
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from, &mut to);
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Ok(mut frozen) = self.frozen.lock()
            && *frozen
        {
            let _ = Command::new("tc")
                .args(["filter", "del", "dev", "lo", "ingress", "pref"])
                .arg(self.addr.port().to_string())
                .output();
            *frozen = false;
        }
        self.cut();
    }
}

#[derive(QueryableByName)]
struct Dump {
    #[diesel(sql_type = Text)]
    dump: String,
}

/// The state database as JSON text, one line per table, without the
/// columns that depend on when or in which attempt things ran (times, the
/// mailbox's receipt included, generated ids, a state document's
/// `UPDATED_AT`): equal dumps mean the same state and the same outcomes.
pub fn state_dump(conn: &mut PgConnection) -> String {
    let tables = [
        "flight_schd",
        "flight_gate",
        "flight_counter",
        "flight_carousel",
        "flight_stand",
        "flight_chute",
        "flight_delay",
        "flight_bridge",
        "flight_chock",
        "flight_route_point",
        "schd_gen",
        "schd_gen_flid",
        "proc_state",
        "kafka_schd",
        "kafka_msg",
    ];
    tables
        .iter()
        .map(|table| {
            // Test-only SQL: table names are constants of this list.
            let query = format!(
                "SELECT '{table}: ' || COALESCE(jsonb_agg(j ORDER BY j::text)::text, '[]') AS dump \
                 FROM (SELECT to_jsonb(t) - ARRAY['updated_at', 'created_at', 'first_seen_at', \
                 'next_attempt_at', 'event_id', 'sent_at', 'received_at'] \
                 || jsonb_strip_nulls(jsonb_build_object('state_document', \
                 (to_jsonb(t) ->> 'state_document')::jsonb - 'UPDATED_AT')) AS j FROM {table} t) s"
            );
            diesel::sql_query(query)
                .get_result::<Dump>(conn)
                .expect("dump a table")
                .dump
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(QueryableByName)]
pub struct CallRow {
    #[diesel(sql_type = Text)]
    pub target: String,
    #[diesel(sql_type = Text)]
    pub status: String,
    #[diesel(sql_type = BigInt)]
    pub attempt: i64,
}

/// `(target, status, attempt)` of every journaled call, by target.
pub fn effect_calls(conn: &mut PgConnection) -> Vec<(String, String, i64)> {
    diesel::sql_query(
        "SELECT target, status, attempt::bigint AS attempt FROM effect_call ORDER BY call_id",
    )
    .load::<CallRow>(conn)
    .expect("read the journal")
    .into_iter()
    .map(|r| (r.target, r.status, r.attempt))
    .collect()
}

#[derive(QueryableByName)]
pub struct ProcRow {
    #[diesel(sql_type = BigInt)]
    pub message_id: i64,
    #[diesel(sql_type = Text)]
    pub status: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub error_kind: Option<String>,
    #[diesel(sql_type = BigInt)]
    pub attempts: i64,
}

/// `(message_id, status, error_kind, attempts)` of every PROC_STATE row.
pub fn proc_states(conn: &mut PgConnection) -> Vec<(i64, String, Option<String>, i64)> {
    diesel::sql_query(
        "SELECT message_id, status, error_kind, attempts::bigint AS attempts \
         FROM proc_state ORDER BY message_id",
    )
    .load::<ProcRow>(conn)
    .expect("read PROC_STATE")
    .into_iter()
    .map(|r| (r.message_id, r.status, r.error_kind, r.attempts))
    .collect()
}

#[derive(QueryableByName)]
pub struct ReasonRow {
    #[diesel(sql_type = BigInt)]
    pub message_id: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub error_text: Option<String>,
}

/// `(message_id, error_text)` of every PROC_STATE row: the recorded reasons.
pub fn proc_reasons(conn: &mut PgConnection) -> Vec<(i64, Option<String>)> {
    diesel::sql_query("SELECT message_id, error_text FROM proc_state ORDER BY message_id")
        .load::<ReasonRow>(conn)
        .expect("read PROC_STATE reasons")
        .into_iter()
        .map(|r| (r.message_id, r.error_text))
        .collect()
}

/// What a run of the pump leaves behind: the state (as [`state_dump`]),
/// `PROC_STATE` and the mailbox's rows.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub state: String,
    pub proc_states: Vec<(i64, String, Option<String>, i64)>,
    pub mailbox: Vec<(i64, Option<String>, bool)>,
}

/// What a run left behind in the state database behind `conn` and in `mb`.
pub fn outcome(conn: &mut PgConnection, mb: &MailboxDatabase) -> Outcome {
    Outcome {
        state: state_dump(conn),
        proc_states: proc_states(conn),
        mailbox: mb.rows(),
    }
}

/// The MariaDB server's general log, on (into `mysql.general_log`) while at
/// least one guard lives; the last guard turns it off again, since it slows
/// every test that talks to the server.
pub struct GeneralLog(());

static GENERAL_LOG_USERS: Mutex<usize> = Mutex::new(0);

impl GeneralLog {
    pub fn on() -> GeneralLog {
        let mut users = GENERAL_LOG_USERS.lock().unwrap_or_else(|e| e.into_inner());
        if *users == 0 {
            set_general_log(true);
        }
        *users += 1;
        GeneralLog(())
    }
}

impl Drop for GeneralLog {
    fn drop(&mut self) {
        let mut users = GENERAL_LOG_USERS.lock().unwrap_or_else(|e| e.into_inner());
        *users -= 1;
        if *users == 0 {
            set_general_log(false);
        }
    }
}

fn set_general_log(on: bool) {
    let server = mysql::Pool::new(mariadb_server_url().as_str()).expect("MariaDB");
    let mut conn = server.get_conn().expect("connect to MariaDB");
    let statements: &[&str] = if on {
        &[
            "SET GLOBAL log_output = 'TABLE'",
            "SET GLOBAL general_log = 1",
        ]
    } else {
        &["SET GLOBAL general_log = 0"]
    };
    for statement in statements {
        conn.query_drop(*statement).expect("switch the general log");
    }
}

/// Pump settings for in-process tests: quick polls and back-off, a lease
/// that does not run out during a test.
pub fn pump_settings(holder: &str) -> flightstate::pump::PumpSettings {
    flightstate::pump::PumpSettings {
        holder: holder.to_owned(),
        lease_ttl: Duration::from_secs(60),
        unsupported_threshold: 3,
        unsupported_retry: Duration::ZERO,
        backoff_initial: Duration::from_millis(20),
        backoff_max: Duration::from_millis(200),
        head_blocked_alert: Duration::from_secs(300),
        bypass_after: None,
        idle_poll: Duration::from_millis(20),
        arrival_poll: None,
        arrival_quiet: Duration::from_secs(60),
        head_batch: 100,
        effect_batch: 100,
        group_commit: 50,
        inline_effects: true,
    }
}

/// The tansu binary: `FLIGHTSTATE_TEST_TANSU` or `tansu` on the `PATH`.
fn tansu_bin() -> String {
    std::env::var("FLIGHTSTATE_TEST_TANSU").unwrap_or_else(|_| "tansu".to_owned())
}

/// A tansu broker of the test's own (in-memory storage), advertised and
/// reached through a proxy the test can cut or freeze; stopped with the
/// guard.
pub struct OwnBroker {
    child: Child,
    pub proxy: Proxy,
}

impl OwnBroker {
    #[track_caller]
    pub fn start() -> OwnBroker {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let listener = format!("127.0.0.1:{port}");
        let proxy = Proxy::start(&listener);
        let child = Command::new(tansu_bin())
            .args(["broker", "--listener-url"])
            .arg(format!("tcp://{listener}"))
            .arg("--advertised-listener-url")
            .arg(format!("tcp://{}", proxy.host_port()))
            .args(["--storage-engine", "memory://tansu/"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tansu (scripts/services installs it)");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(&listener).is_err() {
            assert!(Instant::now() < deadline, "tansu did not listen in 30 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        OwnBroker { child, proxy }
    }

    pub fn brokers(&self) -> String {
        self.proxy.host_port()
    }
}

impl Drop for OwnBroker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `flightstate pump --until-idle` (the binary of this test run) on the
/// state database at `db_url` and the mailbox `mb`, without a config file,
/// with a short lease and quick polls and back-off: the crash tests' pump.
pub fn pump_command(db_url: &str, mb: &MailboxDatabase) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_flightstate"));
    command
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "pump",
            "--until-idle",
        ])
        .env("FLIGHTSTATE_DATABASE_URL", db_url)
        .env("FLIGHTSTATE_MAILBOX_URL", mb.url())
        .env("FLIGHTSTATE_PUMP_LEASE_SECS", "3")
        .env("FLIGHTSTATE_PUMP_IDLE_POLL_MS", "100")
        .env("FLIGHTSTATE_PUMP_BACKOFF_INITIAL_MS", "50")
        .env("FLIGHTSTATE_PUMP_BACKOFF_MAX_MS", "500")
        .env("RUST_LOG", "info");
    command
}
