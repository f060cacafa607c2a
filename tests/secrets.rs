//! Secrets stay secret: the pipeline run with known passwords on every
//! link — the state database, the mailbox, SASL to the brokers, the API's
//! token — through every command, the read API's pages and `run`, at the
//! most verbose log level, and with a wrong password on each link; no line
//! any of them printed (or served) holds a password. Where a URL is shown,
//! its password is masked.
//!
//! Each command is also held to what it did: the healthy ones succeed (or
//! answer as their case asks), the long-running ones are stopped only once
//! their log or the servers show that they used every link, and each run
//! with a wrong password is refused by the link whose password is wrong.
//! Every binary of `common::binaries` goes through it: this build's and,
//! where `FLIGHTSTATE_TEST_RELEASE_BINARY` names it, the shipped one.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::binaries::{Binary, binaries};
use common::child::Running;
use common::eventually;
use common::operator::printed;
use common::private_mariadb::PrivateMariaDb;
use common::private_pg::PrivatePostgres;
use common::secured_broker::{Scram, SecuredBroker};
use common::server::{Folder, free_port};
use dispatching::{pending, topics};
use mysql::prelude::Queryable;

const KAFKA_USER: &str = "flightstate";
const KAFKA_PASSWORD: &str = "kafka-pw-4d1e77b0";
const API_TOKEN: &str = "api-token-93c2a5f1";
const WRONG: &str = "wrong-pw-0b6e2c9d";
/// The generated day.
const DAY: &str = "2026-09-09";
const FLIGHTS: usize = 40;

/// The servers every binary's site uses, each with its own database.
struct Servers {
    pg: PrivatePostgres,
    maria: PrivateMariaDb,
    broker: SecuredBroker,
}

/// The links of one run and the secrets on them.
struct Site<'a> {
    servers: &'a Servers,
    binary: &'a Binary,
    folder: Folder,
    settings: PathBuf,
    database: String,
    mailbox: String,
    db_url: String,
    mailbox_url: String,
    secrets: Vec<String>,
    bind: String,
}

impl Site<'_> {
    /// `flightstate ARGS` with the site's settings and secrets, at `debug`
    /// (librdkafka's own lines too).
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.binary.path);
        command
            .arg("--config")
            .arg(&self.settings)
            .args(args)
            .env("FLIGHTSTATE_DATABASE_URL", &self.db_url)
            .env("FLIGHTSTATE_MAILBOX_URL", &self.mailbox_url)
            .env("FLIGHTSTATE_KAFKA_SASL_PASSWORD", KAFKA_PASSWORD)
            .env("FLIGHTSTATE_API_TOKEN", API_TOKEN)
            .env("FLIGHTSTATE_DATABASE_CONNECTION_TIMEOUT_SECS", "3")
            .env(
                "FLIGHTSTATE_PROTOCOL_OPERATION_DAY_ELEMENT",
                common::sis::DAY_ELEMENT,
            )
            .env("RUST_LOG", "debug")
            .env_remove("FLIGHTSTATE_KAFKA_BROKERS")
            .env_remove("FLIGHTSTATE_FAILPOINTS");
        command
    }

    /// The outbox rows not yet sent, both topics.
    fn unsent(&self) -> i64 {
        let mut conn = self.servers.pg.admin(&self.database);
        pending(&mut conn, "kafka_schd") + pending(&mut conn, "kafka_msg")
    }

    /// Whether mailbox row `id` was written back.
    fn written_back(&self, id: i64) -> bool {
        let mut admin = self.servers.maria.admin();
        admin
            .query_drop(format!("USE {}", self.mailbox))
            .expect("use the mailbox");
        admin
            .exec_first::<Option<String>, _, _>(
                "SELECT CAST(CMINMSGS_DATE_PROCESSED AS CHAR) FROM cminmsgs WHERE CMINMSGS_ID = ?",
                (id,),
            )
            .expect("read the mailbox")
            .flatten()
            .is_some()
    }
}

/// Panics when `text`, what `what` printed or served, holds a secret.
#[track_caller]
fn assert_no_secret(what: &str, text: &str, secrets: &[String]) {
    for secret in secrets {
        if let Some(line) = text.lines().find(|line| line.contains(secret.as_str())) {
            panic!("{what} printed a password: {line}");
        }
    }
}

/// A GET of `path` with the API token, once the API listens; the whole
/// answer.
fn get(bind: &str, path: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut stream = loop {
        match TcpStream::connect(bind) {
            Ok(stream) => break stream,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("the API does not answer on {bind}: {e}"),
        }
    };
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {bind}\r\nAuthorization: Bearer {API_TOKEN}\r\n\
         Connection: close\r\n\r\n"
    )
    .expect("send the request");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read the answer");
    answer
}

/// Starts `command`, waits (at most 60 s) until `done` holds — the sign
/// that it used its links — then stops it with SIGTERM; returns what it
/// printed.
#[track_caller]
fn run_until(mut command: Command, what: &str, mut done: impl FnMut(&Running) -> bool) -> String {
    // What these print on stdout is nothing; their log is on stderr.
    command.stdout(Stdio::null());
    let running = Running::start(command, what);
    assert!(
        eventually(Duration::from_secs(60), || done(&running)),
        "{what} did not get there in 60 s:\n{}",
        running.text()
    );
    running
        .stop(Duration::from_secs(60))
        .into_iter()
        .map(|(_, event)| match event {
            serde_json::Value::String(line) => line + "\n",
            other => other.to_string() + "\n",
        })
        .collect()
}

fn write_private(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
}

/// What a run printed, checked for secrets and kept for the masked-URL
/// check.
struct Said<'s> {
    secrets: &'s [String],
    all: String,
}

impl Said<'_> {
    #[track_caller]
    fn keep(&mut self, what: &str, text: String) -> String {
        assert_no_secret(what, &text, self.secrets);
        self.all.push_str(&text);
        text
    }

    /// Runs `command` to its end; asserts it exited with `code`.
    #[track_caller]
    fn run(&mut self, what: &str, mut command: Command, code: i32) -> String {
        let out: Output = command.output().expect("run flightstate");
        let text = printed(&out);
        assert_eq!(out.status.code(), Some(code), "{what}: {text}");
        self.keep(what, text)
    }
}

#[test]
fn no_command_prints_a_password_on_any_link() {
    let servers = Servers {
        pg: PrivatePostgres::start(None),
        maria: PrivateMariaDb::start(None),
        broker: SecuredBroker::start(&[(KAFKA_USER, KAFKA_PASSWORD, Scram::Sha512)]),
    };
    for (n, binary) in binaries().iter().enumerate() {
        let site = site(&servers, binary, n);
        every_command(&site);
    }
}

/// A database, a mailbox and topics of their own on the servers, for
/// `binary`.
fn site<'a>(servers: &'a Servers, binary: &'a Binary, n: usize) -> Site<'a> {
    let database = format!("fs_secrets_{n}");
    let mailbox = format!("aodb_{n}");
    servers.pg.create_database(&database);
    servers.maria.create_database(&mailbox);
    let folder = Folder::new("secrets");
    let (state_topic, change_topic) = topics("secrets");
    let bind = format!("127.0.0.1:{}", free_port());
    let broker = &servers.broker;
    let mut settings = format!(
        "[kafka]\nbrokers = \"{}\"\nstate_topic = \"{state_topic}\"\nchange_topic = \
         \"{change_topic}\"\ndelivery_timeout_ms = 5000\n[api]\nbind = \"{bind}\"\n\
         [station]\ntime_zone = \"Asia/Shanghai\"\n[cleanup]\n[kafka.client]\n",
        broker.brokers()
    );
    for (name, value) in broker.client_properties(Scram::Sha512, KAFKA_USER, &broker.ca.ca_pem()) {
        settings.push_str(&format!("\"{name}\" = \"{value}\"\n"));
    }
    let settings_file = folder.path().join("flightstate.toml");
    write_private(&settings_file, &settings);
    let site = Site {
        servers,
        binary,
        db_url: servers.pg.url(&database, ""),
        mailbox_url: servers.maria.url(&mailbox, ""),
        database,
        mailbox,
        secrets: vec![
            servers.pg.password().to_owned(),
            servers.maria.password().to_owned(),
            KAFKA_PASSWORD.to_owned(),
            API_TOKEN.to_owned(),
            WRONG.to_owned(),
        ],
        settings: settings_file,
        bind,
        folder,
    };
    assert!(
        site.db_url.contains(servers.pg.password()),
        "the URL carries the password"
    );
    site
}

fn every_command(site: &Site<'_>) {
    let what = |command: &str| format!("{command} ({})", site.binary.what);
    let mut said = Said {
        secrets: &site.secrets,
        all: String::new(),
    };
    let day = site.folder.path().join("day");
    let mut generate = site.command(&["generate", "--day", DAY, "--flights"]);
    generate.arg(FLIGHTS.to_string()).arg("--out").arg(&day);
    said.run(&what("generate"), generate, 0);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&day)
        .expect("the day's files")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let snapshot_at = files
        .iter()
        .position(|f| f.to_string_lossy().ends_with("-SCHD-DNLD.xml"))
        .expect("the day's snapshot");
    let snapshot = files[snapshot_at].clone();
    // Flight events of flights the day does not have: applied, each creates
    // its flight and events to send.
    let new_flight = |flid: i64| {
        let file = site.folder.path().join(format!("flop-{flid}.xml"));
        let body = common::sis::flop("RENO", &[(flid, "<RENO>B4242</RENO>")]);
        std::fs::write(&file, body).expect("write");
        file
    };
    let (event, refused_event) = (new_flight(990_001), new_flight(990_002));
    // A malformed message, queued last: a dead letter to requeue.
    let malformed = site.folder.path().join("malformed.xml");
    std::fs::write(&malformed, "<MSG><META>").expect("write");

    said.run(&what("migrate"), site.command(&["migrate"]), 0);
    let parsed = said.run(
        &what("parse"),
        {
            let mut c = site.command(&["parse"]);
            c.arg(&snapshot);
            c
        },
        0,
    );
    assert!(parsed.contains("\"DNLD\""), "{parsed}");
    let mut enqueue = site.command(&["enqueue", "--create-tables"]);
    enqueue.args(&files).arg(&malformed);
    said.run(&what("enqueue"), enqueue, 0);
    // Mailbox ids are given in queue order from 1.
    let snapshot_id = i64::try_from(snapshot_at + 1).expect("small");
    let malformed_id = i64::try_from(files.len() + 1).expect("small");

    said.run(&what("pump"), site.command(&["pump", "--until-idle"]), 0);
    said.run(
        &what("dispatch"),
        site.command(&["dispatch", "--until-idle"]),
        0,
    );
    assert_eq!(site.unsent(), 0, "the outbox was sent");
    let doctor = said.run(&what("doctor"), site.command(&["doctor"]), 0);
    assert!(doctor.contains("all checks hold"), "{doctor}");
    said.run(&what("status"), site.command(&["status"]), 0);
    said.run(
        &what("status --json"),
        site.command(&["status", "--json"]),
        0,
    );
    said.run(&what("topics"), site.command(&["topics"]), 0);
    said.run(&what("requests"), site.command(&["requests"]), 0);
    let dead = said.run(&what("dead list"), site.command(&["dead", "list"]), 0);
    assert!(dead.contains(&malformed_id.to_string()), "{dead}");
    said.run(
        &what("dead requeue"),
        site.command(&["dead", "requeue", &malformed_id.to_string(), "--by", "test"]),
        0,
    );
    let cleanup = said.run(
        &what("cleanup --dry-run"),
        site.command(&["cleanup", "--dry-run"]),
        0,
    );
    assert!(
        cleanup.contains("would"),
        "a dry run says what it would do: {cleanup}"
    );
    said.run(
        &what("resync --dry-run"),
        site.command(&["resync", "--dry-run"]),
        0,
    );
    said.run(
        &what("replay --dry-run"),
        site.command(&[
            "replay",
            &snapshot_id.to_string(),
            "--day",
            DAY,
            "--version",
            "latest",
            "--dry-run",
        ]),
        0,
    );
    for decision in ["release", "reject"] {
        let answer = said.run(
            &what(decision),
            site.command(&[decision, &snapshot_id.to_string(), "--by", "test"]),
            1,
        );
        assert!(answer.contains("not held"), "{decision}: {answer}");
    }
    said.run(
        &what("request"),
        site.command(&["request", "--day", DAY]),
        0,
    );
    said.run(&what("sql"), site.command(&["sql"]), 0);
    // A flight event applied straight to the state database: its outbox
    // rows wait for `run`'s dispatcher.
    let mut apply = site.command(&["apply", "--message-id", "900001"]);
    apply.arg(&event);
    said.run(&what("apply"), apply, 0);
    assert!(site.unsent() > 0, "apply left events to send");

    // The read API's pages, while `serve` runs (each GET waits for it).
    let bind = site.bind.clone();
    let mut pages = String::new();
    let served = run_until(site.command(&["serve"]), &what("serve"), |_| {
        pages = ["/", "/metrics", "/healthz", "/all/flights", "/flights/1"]
            .iter()
            .map(|path| get(&bind, path))
            .collect();
        true
    });
    assert!(pages.contains("flightstate"), "the status page was served");
    said.keep(&what("serve and its pages"), format!("{served}{pages}"));

    // The whole pipeline in one process, stopped once it used every link:
    // the requeued dead letter written back (state database and mailbox),
    // the applied event's rows sent (the brokers).
    said.keep(
        &what("run"),
        run_until(site.command(&["run"]), &what("run"), |_| {
            site.unsent() == 0 && site.written_back(malformed_id)
        }),
    );

    wrong_passwords(site, &mut said, &refused_event);

    // Where a URL is shown, its password is masked.
    assert!(
        said.all
            .contains(&format!("{}:***@", common::private_pg::USER)),
        "a masked state database URL is shown somewhere"
    );
}

/// A wrong password on each link: refused there, and neither password
/// shown.
fn wrong_passwords(site: &Site<'_>, said: &mut Said<'_>, event: &Path) {
    let what = |command: &str| format!("{command} ({})", site.binary.what);
    let servers = site.servers;
    let wrong_db = site.db_url.replace(servers.pg.password(), WRONG);
    let mut command = site.command(&["migrate"]);
    command.env("FLIGHTSTATE_DATABASE_URL", &wrong_db);
    let refused = said.run(&what("migrate, wrong password"), command, 2);
    assert!(
        refused.contains("password authentication failed"),
        "refused by the state database: {refused}"
    );

    // A pump whose mailbox refuses it retries until stopped; it is stopped
    // once it said so.
    let wrong_mailbox = site.mailbox_url.replace(servers.maria.password(), WRONG);
    let mut command = site.command(&["pump"]);
    command.env("FLIGHTSTATE_MAILBOX_URL", &wrong_mailbox);
    let pump = run_until(command, &what("pump, wrong mailbox password"), |pump| {
        !pump.lines_with("Access denied").is_empty()
    });
    said.keep(&what("pump, wrong mailbox password"), pump);

    let mut command = site.command(&["doctor"]);
    command
        .env("FLIGHTSTATE_DATABASE_URL", &wrong_db)
        .env("FLIGHTSTATE_MAILBOX_URL", &wrong_mailbox)
        .env("FLIGHTSTATE_KAFKA_SASL_PASSWORD", WRONG);
    let doctor = said.run(&what("doctor, every password wrong"), command, 1);
    for link in ["FAIL state database:", "FAIL mailbox:", "FAIL brokers:"] {
        assert!(doctor.contains(link), "{link} in {doctor}");
    }

    // Rows to send, so that the dispatcher has something the broker refuses.
    let mut apply = site.command(&["apply", "--message-id", "900002"]);
    apply.arg(event);
    said.run(&what("apply"), apply, 0);
    let before = site.unsent();
    assert!(before > 0, "apply left events to send");
    let mut command = site.command(&["dispatch", "--until-idle"]);
    command.env("FLIGHTSTATE_KAFKA_SASL_PASSWORD", WRONG);
    let dispatch = said.run(&what("dispatch, wrong kafka password"), command, 2);
    assert!(
        dispatch.contains("refused flightstate's credentials"),
        "refused by the broker: {dispatch}"
    );
    assert_eq!(site.unsent(), before, "nothing was sent");
}
