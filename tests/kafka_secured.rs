//! The dispatcher over a secured link (issue "secured links"): SASL SCRAM
//! over TLS to a broker of the test's own (`common::secured_broker`),
//! configured as a site would — librdkafka's properties in `[kafka.client]`
//! of a settings file, the password in the environment.
//!
//! - the right credentials deliver every event, with SCRAM-SHA-512 and
//!   SCRAM-SHA-256, and the consumer's view equals the database;
//! - a wrong password is one `ERROR` naming the broker and the mechanism,
//!   then back-off: few tries, nothing sent, every row still pending;
//! - a CA that did not sign the broker's certificate is refused the same
//!   way, naming TLS and `ssl.ca.location`;
//! - `doctor` says which of the two it is.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::binaries::binaries;
use common::child::Running;
use common::operator::printed;
use common::secured_broker::{Scram, SecuredBroker};
use common::server::Folder;
use common::tls::TestCa;
use common::{TestDatabase, eventually};
use dispatching::{outbox_of_a_day, pending, read_all_with, rebuild, stored, topics};

const USER: &str = "flightstate";
const PASSWORD: &str = "pw-kafka-7f3a9c";

/// A settings file as a site writes it (mode 0600): `[kafka]` and the
/// `[kafka.client]` properties; no password in it.
fn settings_file(
    folder: &Folder,
    broker: &SecuredBroker,
    scram: Scram,
    ca: &Path,
    topics: &(String, String),
) -> std::path::PathBuf {
    let mut text = format!(
        "[kafka]\nbrokers = \"{}\"\nstate_topic = \"{}\"\nchange_topic = \"{}\"\n\
         lanes = 2\ndelivery_timeout_ms = 5000\nbackoff_initial_ms = {}\nbackoff_max_ms = {}\n\
         [api]\nbind = \"\"\n[kafka.client]\n",
        broker.brokers(),
        topics.0,
        topics.1,
        BACKOFF_INITIAL.as_millis(),
        BACKOFF_MAX.as_millis(),
    );
    for (name, value) in broker.client_properties(scram, USER, ca) {
        text.push_str(&format!("\"{name}\" = \"{value}\"\n"));
    }
    let file = folder.path().join("flightstate.toml");
    std::fs::write(&file, text).expect("write the settings");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    file
}

fn command(binary: &Path, settings: &Path, db: &TestDatabase, password: &str) -> Command {
    let mut command = Command::new(binary);
    command
        .arg("--config")
        .arg(settings)
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_KAFKA_SASL_PASSWORD", password)
        .env_remove("FLIGHTSTATE_KAFKA_BROKERS");
    command
}

#[test]
fn the_right_credentials_over_tls_deliver_every_event() {
    let broker = SecuredBroker::start(&[
        (USER, PASSWORD, Scram::Sha512),
        ("other", PASSWORD, Scram::Sha256),
    ]);
    let binaries = binaries();
    let cases = [(Scram::Sha512, USER), (Scram::Sha256, "other")];
    for (binary, (scram, user)) in binaries
        .iter()
        .flat_map(|b| cases.iter().map(move |c| (b, *c)))
    {
        let (db, store) = outbox_of_a_day(12);
        let topics = topics("secured");
        let folder = Folder::new("kafka_secured_ok");
        let mut file = settings_file(&folder, &broker, scram, &broker.ca.ca_pem(), &topics);
        if user != USER {
            let text = std::fs::read_to_string(&file)
                .expect("settings")
                .replace(&format!("\"{USER}\""), &format!("\"{user}\""));
            file = folder.path().join("other.toml");
            std::fs::write(&file, text).expect("settings");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        }
        let out = command(&binary.path, &file, &db, PASSWORD)
            .args(["dispatch", "--until-idle"])
            .output()
            .expect("run dispatch");
        let said = printed(&out);
        assert!(out.status.success(), "{}, {scram:?}: {said}", binary.what);
        assert!(!said.contains(PASSWORD), "{said}");
        let mut conn = db.connect();
        assert_eq!(pending(&mut conn, "kafka_schd"), 0, "{said}");
        assert_eq!(pending(&mut conn, "kafka_msg"), 0, "{said}");
        let client = broker.client(scram, user, PASSWORD);
        let states = read_all_with(&client, &topics.0);
        assert_eq!(rebuild(&states), stored(&store, &mut conn), "{scram:?}");
        assert!(!read_all_with(&client, &topics.1).is_empty());
    }
}

/// `kafka.backoff_initial_ms` and `kafka.backoff_max_ms` of the settings
/// file: the dispatcher waits the first, then twice as long after each
/// failed try, up to the second.
const BACKOFF_INITIAL: Duration = Duration::from_millis(500);
const BACKOFF_MAX: Duration = Duration::from_millis(4000);
/// Tries of a refused dispatcher the test waits for: three waits between
/// them (0.5, 1 and 2 s) show the back-off.
const TRIES: usize = 4;
/// Connections a refused try may open: its first, and the reconnects
/// librdkafka makes meanwhile at `reconnect.backoff.ms` (its default
/// 100 ms, doubled each time), while the try waits out the 100 ms slice of
/// its metadata request after which it reads the refusal
/// (`kafka::KafkaClient::metadata`), or a second slice: at most three.
const CONNECTIONS_PER_TRY: usize = 3;

/// Runs `flightstate dispatch` (no `--until-idle`: it waits for the broker
/// as `run` does) at `debug` until it has tried [`TRIES`] times, then stops
/// it; returns what it logged and when each try ended ("will retry").
fn dispatch_until_refused(mut command: Command) -> (String, Vec<Instant>) {
    command
        .arg("dispatch")
        .env("RUST_LOG", "flightstate=debug")
        .env("FLIGHTSTATE_LOG_FORMAT", "text")
        .stdout(Stdio::null());
    let running = Running::start(command, "flightstate dispatch");
    let tries = |running: &Running| -> Vec<Instant> {
        running
            .events()
            .into_iter()
            .filter(|(_, line)| line.as_str().is_some_and(|l| l.contains("will retry")))
            .map(|(at, _)| at)
            .collect()
    };
    assert!(
        eventually(Duration::from_secs(60), || tries(&running).len() >= TRIES),
        "the dispatcher did not try {TRIES} times in 60 s:\n{}",
        running.text()
    );
    let log = running.text();
    let ends = tries(&running);
    running.stop(Duration::from_secs(60));
    (log, ends)
}

/// The pending rows of the two outboxes.
fn pending_rows(db: &TestDatabase) -> (i64, i64) {
    let mut conn = db.connect();
    (
        pending(&mut conn, "kafka_schd"),
        pending(&mut conn, "kafka_msg"),
    )
}

/// The lines of `log` at `level`.
fn at_level<'a>(log: &'a str, level: &str) -> Vec<&'a str> {
    log.lines()
        .filter(|line| line.split_whitespace().nth(1) == Some(level))
        .collect()
}

/// What a refused dispatcher must show: one ERROR with `expected` in it,
/// few tries, no password, nothing sent.
#[track_caller]
fn assert_refused_once(
    log: &str,
    expected: &[&str],
    db: &TestDatabase,
    rows: (i64, i64),
    connections: usize,
    tries: &[Instant],
) {
    let errors = at_level(log, "ERROR");
    assert_eq!(
        errors.len(),
        1,
        "one ERROR line, not {}:\n{log}",
        errors.len()
    );
    for part in expected {
        assert!(
            errors[0].contains(part),
            "{part:?} missing from: {}",
            errors[0]
        );
    }
    // Back-off, not a hot loop: each try of the dispatcher ends as soon as
    // the broker refuses it, and the wait after the n-th try is the
    // settings file's back-off, doubled from its first value up to its
    // longest; the next try ends after that wait.
    let mut wait = BACKOFF_INITIAL;
    for (n, pair) in tries.windows(2).enumerate() {
        let gap = pair[1].duration_since(pair[0]);
        assert!(
            gap >= wait,
            "try {} ended {gap:?} after the one before, within the back-off of {wait:?}:\n{log}",
            n + 2
        );
        wait = (wait * 2).min(BACKOFF_MAX);
    }
    // Its producers are not made until the topics are ready, so each try is
    // one metadata request of one client, dropped once it read the
    // refusal: the connections the broker accepts (counted where it
    // accepts them) are a few per try. A loop without back-off would make
    // thousands.
    assert!(
        connections <= CONNECTIONS_PER_TRY * tries.len(),
        "{connections} connections in {} tries",
        tries.len()
    );
    eprintln!("{} tries, {connections} connections", tries.len());
    assert!(!log.contains(PASSWORD), "{log}");
    assert_eq!(pending_rows(db), rows, "every row still pending");
}

#[test]
fn a_wrong_password_is_one_error_naming_the_broker_and_the_mechanism_then_back_off() {
    let broker = SecuredBroker::start(&[(USER, PASSWORD, Scram::Sha512)]);
    let (db, _store) = outbox_of_a_day(12);
    let rows = pending_rows(&db);
    assert!(rows.0 > 0 && rows.1 > 0);
    let folder = Folder::new("kafka_secured_pw");
    let topics = topics("secured-pw");
    let file = settings_file(
        &folder,
        &broker,
        Scram::Sha512,
        &broker.ca.ca_pem(),
        &topics,
    );
    let bin = Path::new(env!("CARGO_BIN_EXE_flightstate"));
    let before = broker.connections();
    let (log, tries) = dispatch_until_refused(command(bin, &file, &db, "not-the-password"));
    let connections = broker.connections() - before;
    let broker_name = format!("sasl_ssl://{}", broker.brokers());
    assert_refused_once(
        &log,
        &[
            &broker_name,
            "refused flightstate's credentials",
            "SCRAM-SHA-512 as flightstate",
            "FLIGHTSTATE_KAFKA_SASL_PASSWORD",
        ],
        &db,
        rows,
        connections,
        &tries,
    );
    let out = command(bin, &file, &db, "not-the-password")
        .arg("doctor")
        .output()
        .expect("run doctor");
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    let line = report
        .lines()
        .find(|l| l.starts_with("FAIL brokers"))
        .unwrap_or_else(|| panic!("no brokers line:\n{report}"));
    assert!(
        line.contains(&broker_name) && line.contains("refused flightstate's credentials"),
        "{line}"
    );
}

#[test]
fn a_broker_certificate_of_an_unknown_ca_is_refused_the_same_way() {
    let broker = SecuredBroker::start(&[(USER, PASSWORD, Scram::Sha512)]);
    let (db, _store) = outbox_of_a_day(12);
    let rows = pending_rows(&db);
    let other = TestCa::new("not-the-brokers");
    let folder = Folder::new("kafka_secured_ca");
    for binary in binaries() {
        let topics = topics("secured-ca");
        let file = settings_file(&folder, &broker, Scram::Sha512, &other.ca_pem(), &topics);
        let before = broker.connections();
        let (log, tries) = dispatch_until_refused(command(&binary.path, &file, &db, PASSWORD));
        let connections = broker.connections() - before;
        assert_refused_once(
            &log,
            &[
                &format!("TLS with kafka broker sasl_ssl://{}", broker.brokers()),
                "certificate verify failed",
                "ssl.ca.location",
            ],
            &db,
            rows,
            connections,
            &tries,
        );
    }
}
