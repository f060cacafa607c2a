//! What every benchmark needs: its own PostgreSQL database, options from
//! the environment, and where the CPU time went (Linux `/proc`).

#![allow(dead_code)] // each benchmark uses its own part

use diesel::{Connection, PgConnection, RunQueryDsl};

pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The ten flight tables: the main row and the nine collections.
pub const FLIGHT_TABLES: [&str; 10] = [
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
];

/// The admin URL of the PostgreSQL server the benchmarks use. Without an
/// `sslmode` of its own it gets `sslmode=disable`: the benches talk to a
/// server on this host, and libpq's default (`prefer`) would encrypt every
/// row on both sides of the loopback, which no baseline here pays (the
/// plain Kafka producer is plaintext too). Give `sslmode=prefer` (or
/// `require`) in `FLIGHTSTATE_TEST_PG_ADMIN_URL` to measure with TLS.
pub fn pg_admin_url() -> String {
    let url = std::env::var("FLIGHTSTATE_TEST_PG_ADMIN_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
    if url.contains("sslmode=") {
        url
    } else if url.contains('?') {
        format!("{url}&sslmode=disable")
    } else {
        format!("{url}?sslmode=disable")
    }
}

/// An option from the environment, or its default.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A database of the benchmark's own, dropped at the end.
pub struct BenchDatabase {
    admin: String,
    pub name: String,
    pub url: String,
}

impl BenchDatabase {
    pub fn create(admin: &str, tag: &str) -> BenchResult<BenchDatabase> {
        let name = format!("flightstate_bench_{tag}_{}", std::process::id());
        let mut conn = PgConnection::establish(admin)?;
        // Benchmark infrastructure: the identifier is built from the pid.
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut conn)?;
        diesel::sql_query(format!("CREATE DATABASE {name}")).execute(&mut conn)?;
        let (path, query) = admin
            .split_once('?')
            .map_or((admin, String::new()), |(p, q)| (p, format!("?{q}")));
        let base = path.rsplit_once('/').map_or(path, |(base, _)| base);
        Ok(BenchDatabase {
            admin: admin.to_owned(),
            url: format!("{base}/{name}{query}"),
            name,
        })
    }
}

impl Drop for BenchDatabase {
    fn drop(&mut self) {
        if let Ok(mut conn) = PgConnection::establish(&self.admin) {
            let _ = diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .execute(&mut conn);
        }
    }
}

/// Peak resident set of this process, in KiB.
pub fn peak_rss_kib() -> BenchResult<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| "no VmHWM in /proc/self/status".into())
}

/// CPU seconds (user + system) used so far by this process, by every
/// process named `postgres` and by every process named `tansu`: read
/// before and after a phase, they tell which side a rate is bound by. Only
/// processes alive at both readings count (a server process that served a
/// short-lived client is gone, and its time with it). Zero where `/proc` is
/// missing.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuTimes {
    pub own: f64,
    pub postgres: f64,
    pub broker: f64,
}

impl CpuTimes {
    pub fn now() -> CpuTimes {
        let mut times = CpuTimes::default();
        let me = std::process::id().to_string();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return times;
        };
        for entry in entries.flatten() {
            let pid = entry.file_name().to_string_lossy().into_owned();
            if !pid.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state …`: comm may hold spaces, so split at the last ')'.
            let Some((head, rest)) = stat.rsplit_once(')') else {
                continue;
            };
            let comm = head.split_once('(').map_or("", |(_, c)| c);
            let fields: Vec<&str> = rest.split_whitespace().collect();
            // utime and stime are fields 14 and 15 of the line, 12 and 13 after comm.
            let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
            let (Some(user), Some(system)) = (ticks(11), ticks(12)) else {
                continue;
            };
            // Linux reports in USER_HZ, 100 on every mainstream build.
            let secs = (user + system) / 100.0;
            if pid == me {
                times.own += secs;
            } else if comm == "postgres" {
                times.postgres += secs;
            } else if comm == "tansu" {
                times.broker += secs;
            }
        }
        times
    }

    /// What was used since `earlier`, as one line for people.
    pub fn since(&self, earlier: &CpuTimes, wall_secs: f64) -> String {
        format!(
            "CPU {:.2}s own + {:.2}s PostgreSQL + {:.2}s broker over {wall_secs:.2}s wall",
            self.own - earlier.own,
            self.postgres - earlier.postgres,
            self.broker - earlier.broker,
        )
    }
}

/// The AODB mailbox tables (`sql/mailbox/aodb_mailbox.sql`).
const MAILBOX_DDL: &str = include_str!("../../sql/mailbox/aodb_mailbox.sql");

/// Makes `name` a fresh MariaDB database holding the AODB mailbox tables,
/// and `conn`'s current database.
pub fn create_mailbox(conn: &mut mysql::PooledConn, name: &str) -> BenchResult<()> {
    use mysql::prelude::Queryable;
    conn.query_drop(format!("DROP DATABASE IF EXISTS {name}"))?;
    conn.query_drop(format!("CREATE DATABASE {name} CHARACTER SET utf8mb4"))?;
    conn.query_drop(format!("USE {name}"))?;
    for statement in MAILBOX_DDL.split(';').filter(|s| {
        s.lines()
            .any(|l| !l.trim().is_empty() && !l.trim().starts_with("--"))
    }) {
        conn.query_drop(statement)?;
    }
    Ok(())
}

/// Creates `names`, one partition each, through `client`.
pub fn create_topics(client: &flightstate::kafka::KafkaClient, names: &[&str]) -> BenchResult<()> {
    use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
    use rdkafka::client::DefaultClientContext;
    let admin: AdminClient<DefaultClientContext> = client.config().create()?;
    let topics: Vec<NewTopic<'_>> = names
        .iter()
        .map(|n| NewTopic::new(n, 1, TopicReplication::Fixed(1)))
        .collect();
    for result in futures_executor::block_on(admin.create_topics(&topics, &AdminOptions::new()))? {
        result.map_err(|(t, e)| format!("create topic {t}: {e}"))?;
    }
    Ok(())
}

/// Queues `bodies` as pending mailbox rows, in order, in one transaction.
pub fn insert_all(conn: &mut mysql::PooledConn, bodies: &[Vec<u8>]) -> BenchResult<()> {
    use mysql::prelude::Queryable;
    let mut tx = conn.start_transaction(mysql::TxOpts::default())?;
    tx.exec_batch(
        "INSERT INTO cminmsgs (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, CMINMSGS_STATUS) \
         VALUES (?, NOW(), 'VALID')",
        bodies.iter().map(|b| (b.as_slice(),)),
    )?;
    tx.commit()?;
    Ok(())
}
