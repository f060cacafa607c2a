//! Secrets stay secret: the pipeline run with known passwords on every
//! link — the state database, the mailbox, SASL to the brokers, the API's
//! token — through every command, the read API's pages and `run`, at the
//! most verbose log level, and with a wrong password on each link; no line
//! any of them printed (or served) holds a password. Where a URL is shown,
//! its password is masked.
#![cfg(feature = "postgres")]

mod common;
mod dispatching;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::child::{BIN, terminate, wait_for_exit};
use common::operator::printed;
use common::private_mariadb::PrivateMariaDb;
use common::private_pg::PrivatePostgres;
use common::secured_broker::{Scram, SecuredBroker};
use common::server::{Folder, free_port};
use dispatching::topics;

const KAFKA_USER: &str = "flightstate";
const KAFKA_PASSWORD: &str = "kafka-pw-4d1e77b0";
const API_TOKEN: &str = "api-token-93c2a5f1";
const WRONG: &str = "wrong-pw-0b6e2c9d";

/// The links of one run and the secrets on them.
struct Site {
    folder: Folder,
    settings: PathBuf,
    db_url: String,
    mailbox_url: String,
    secrets: Vec<String>,
    bind: String,
}

impl Site {
    /// `flightstate ARGS` with the site's settings and secrets, at `debug`
    /// (librdkafka's own lines too).
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BIN);
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
            .env_remove("FLIGHTSTATE_KAFKA_BROKERS");
        command
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

/// A GET of `path` with the API token; the whole answer.
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

/// Runs `command` for `secs` seconds, then stops it with SIGTERM; returns
/// what it printed.
fn run_for(mut command: Command, secs: u64, while_running: impl FnOnce() -> String) -> String {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start flightstate");
    std::thread::sleep(Duration::from_secs(secs));
    let served = while_running();
    terminate(&child);
    wait_for_exit(
        &mut child,
        Duration::from_secs(60),
        "flightstate on SIGTERM",
    );
    let out = child.wait_with_output().expect("its output");
    format!("{}{served}", printed(&out))
}

fn write_private(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
}

#[test]
fn no_command_prints_a_password_on_any_link() {
    let pg = PrivatePostgres::start(None);
    pg.create_database("fs_secrets");
    let maria = PrivateMariaDb::start(None);
    maria.create_database("aodb");
    let broker = SecuredBroker::start(&[(KAFKA_USER, KAFKA_PASSWORD, Scram::Sha512)]);
    let folder = Folder::new("secrets");
    let (state_topic, change_topic) = topics("secrets");
    let bind = format!("127.0.0.1:{}", free_port());
    let mut settings = format!(
        "[kafka]\nbrokers = \"{}\"\nstate_topic = \"{state_topic}\"\nchange_topic = \
         \"{change_topic}\"\ndelivery_timeout_ms = 5000\n[api]\nbind = \"{bind}\"\n\
         [cleanup]\n[kafka.client]\n",
        broker.brokers()
    );
    for (name, value) in broker.client_properties(Scram::Sha512, KAFKA_USER, &broker.ca.ca_pem()) {
        settings.push_str(&format!("\"{name}\" = \"{value}\"\n"));
    }
    let settings_file = folder.path().join("flightstate.toml");
    write_private(&settings_file, &settings);
    let site = Site {
        db_url: pg.url("fs_secrets", ""),
        mailbox_url: maria.url("aodb", ""),
        secrets: vec![
            pg.password().to_owned(),
            maria.password().to_owned(),
            KAFKA_PASSWORD.to_owned(),
            API_TOKEN.to_owned(),
            WRONG.to_owned(),
        ],
        settings: settings_file,
        bind,
        folder,
    };
    assert!(
        site.db_url.contains(pg.password()),
        "the URL carries the password"
    );

    let day = site.folder.path().join("day");
    let out = site
        .command(&[
            "generate",
            "--day",
            "2026-09-09",
            "--flights",
            "40",
            "--out",
        ])
        .arg(&day)
        .output()
        .expect("generate");
    assert!(out.status.success(), "{}", printed(&out));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&day)
        .expect("the day's files")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();

    let mut said = Vec::new();
    let mut run = |what: &str, mut command: Command, ok: bool| {
        let out = command.output().expect("run flightstate");
        let text = printed(&out);
        if ok {
            assert!(out.status.success(), "{what}: {text}");
        }
        assert_no_secret(what, &text, &site.secrets);
        said.push((what.to_owned(), text));
    };
    run("migrate", site.command(&["migrate"]), true);
    let mut enqueue = site.command(&["enqueue", "--create-tables"]);
    enqueue.args(&files);
    run("enqueue", enqueue, true);
    run("doctor", site.command(&["doctor"]), false);
    run("pump", site.command(&["pump", "--until-idle"]), true);
    run(
        "dispatch",
        site.command(&["dispatch", "--until-idle"]),
        true,
    );
    run("status", site.command(&["status"]), true);
    run("status --json", site.command(&["status", "--json"]), true);
    run("topics", site.command(&["topics"]), true);
    run("requests", site.command(&["requests"]), true);
    run("dead list", site.command(&["dead", "list"]), true);
    run(
        "cleanup --dry-run",
        site.command(&["cleanup", "--dry-run"]),
        false,
    );
    run(
        "resync --dry-run",
        site.command(&["resync", "--dry-run"]),
        true,
    );
    run("sql", site.command(&["sql"]), true);

    // The read API's pages, while `serve` runs.
    let serve = run_for(site.command(&["serve"]), 2, || {
        ["/", "/metrics", "/healthz", "/all/flights", "/flights/1"]
            .iter()
            .map(|path| get(&site.bind, path))
            .collect()
    });
    assert!(serve.contains("flightstate"), "the status page was served");
    assert_no_secret("serve and its pages", &serve, &site.secrets);
    // The whole pipeline in one process.
    let run_log = run_for(site.command(&["run"]), 5, String::new);
    assert_no_secret("run", &run_log, &site.secrets);

    // A wrong password on each link: refused, and neither password shown.
    let wrong_db = site.db_url.replace(pg.password(), WRONG);
    let mut command = site.command(&["migrate"]);
    command.env("FLIGHTSTATE_DATABASE_URL", &wrong_db);
    run("migrate, wrong password", command, false);
    let wrong_mailbox = site.mailbox_url.replace(maria.password(), WRONG);
    // A pump whose mailbox refuses it retries until stopped.
    let mut command = site.command(&["pump"]);
    command.env("FLIGHTSTATE_MAILBOX_URL", &wrong_mailbox);
    let pump_log = run_for(command, 3, String::new);
    assert_no_secret("pump, wrong mailbox password", &pump_log, &site.secrets);
    let mut command = site.command(&["doctor"]);
    command
        .env("FLIGHTSTATE_DATABASE_URL", &wrong_db)
        .env("FLIGHTSTATE_MAILBOX_URL", &wrong_mailbox)
        .env("FLIGHTSTATE_KAFKA_SASL_PASSWORD", WRONG);
    run("doctor, every password wrong", command, false);
    let mut command = site.command(&["dispatch", "--until-idle"]);
    command.env("FLIGHTSTATE_KAFKA_SASL_PASSWORD", WRONG);
    run("dispatch, wrong kafka password", command, false);

    // Where a URL is shown, its password is masked.
    let shown: String = said.iter().map(|(_, text)| text.as_str()).collect();
    assert!(
        shown.contains(&format!("{}:***@", common::private_pg::USER)),
        "a masked state database URL is shown somewhere"
    );
}
