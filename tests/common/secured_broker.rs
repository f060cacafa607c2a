//! A Kafka broker of the test's own that asks what a site's cluster asks:
//! SASL (SCRAM) over TLS, with a certificate of the tests' CA.
//!
//! tansu stands for the broker. Two things about tansu 0.6 shape this:
//! its users live in its storage and are made through the broker itself
//! (`tansu user create`), which an authenticating broker refuses to an
//! unauthenticated client — so the broker first runs without
//! `--authentication` on a SQLite file to take the users, then again with
//! it on the same file; and it takes `--cert`/`--key` but does not encrypt
//! its listener with them (its TLS acceptor is not wired up), so a TLS
//! terminator (`socat OPENSSL-LISTEN`, as a site may run stunnel or a load
//! balancer) serves TLS in front of it and is the address the broker
//! advertises. The Kafka protocol, SASL included, runs inside that TLS.

use std::net::TcpStream;
use std::process::Command;

use flightstate::kafka::KafkaClient;

use super::server::{Folder, ServerProcess, free_port, set_up};
use super::tls::{Issued, TestCa};

/// A SCRAM mechanism, with tansu's and librdkafka's names for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scram {
    /// SCRAM-SHA-256.
    Sha256,
    /// SCRAM-SHA-512.
    Sha512,
}

impl Scram {
    fn tansu_name(self) -> &'static str {
        match self {
            Scram::Sha256 => "scram256",
            Scram::Sha512 => "scram512",
        }
    }

    /// librdkafka's `sasl.mechanism`.
    pub fn mechanism(self) -> &'static str {
        match self {
            Scram::Sha256 => "SCRAM-SHA-256",
            Scram::Sha512 => "SCRAM-SHA-512",
        }
    }
}

/// The tansu binary: `FLIGHTSTATE_TEST_TANSU` or `tansu` on the `PATH`.
fn tansu() -> String {
    std::env::var("FLIGHTSTATE_TEST_TANSU").unwrap_or_else(|_| "tansu".to_owned())
}

/// A running broker behind TLS, asking SASL; stopped when dropped.
pub struct SecuredBroker {
    // Dropped in this order: the terminator, the broker, then their files.
    tls: ServerProcess,
    _broker: ServerProcess,
    /// The CA that signed the TLS listener's certificate.
    pub ca: TestCa,
    tls_port: u16,
    _folder: Folder,
}

fn listening(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_ok()
}

fn broker_command(folder: &Folder, port: u16, advertised: u16) -> Command {
    let mut command = Command::new(tansu());
    command
        .args(["broker", "--silent", "--listener-url"])
        .arg(format!("tcp://127.0.0.1:{port}"))
        .arg("--advertised-listener-url")
        .arg(format!("tcp://127.0.0.1:{advertised}"))
        // tansu reads the URL's path as relative: the file is the
        // folder's own.
        .args(["--storage-engine", "sqlite://./broker.db"])
        .current_dir(folder.path());
    command
}

impl SecuredBroker {
    /// A broker whose users are `users` (name, password, mechanism).
    #[track_caller]
    pub fn start(users: &[(&str, &str, Scram)]) -> SecuredBroker {
        let folder = Folder::new("kafka_secured");
        let (port, tls_port) = (free_port(), free_port());
        {
            let mut setup = ServerProcess::start(
                broker_command(&folder, port, port),
                "tansu (taking users)",
                folder.path().join("setup.log"),
                libc::SIGTERM,
            );
            setup.wait_until_ready(|| listening(port));
            for (name, password, scram) in users {
                let mut create = Command::new(tansu());
                create
                    .args(["user", "create", "--broker"])
                    .arg(format!("tcp://127.0.0.1:{port}"))
                    .args([name, password, "--mechanism", scram.tansu_name()]);
                set_up(create, "tansu user create");
            }
        }
        let mut broker_run = broker_command(&folder, port, tls_port);
        broker_run.arg("--authentication");
        let mut broker = ServerProcess::start(
            broker_run,
            "tansu",
            folder.path().join("broker.log"),
            libc::SIGTERM,
        );
        broker.wait_until_ready(|| listening(port));
        let ca = TestCa::new("kafka");
        let Issued { cert, key } = ca.server_cert("broker");
        let mut terminator = Command::new("socat");
        // `-d -d` logs every connection it accepts: the count of the
        // clients' connection attempts.
        terminator
            .args(["-d", "-d"])
            .arg(format!(
                "OPENSSL-LISTEN:{tls_port},bind=127.0.0.1,reuseaddr,fork,verify=0,cert={},key={}",
                cert.display(),
                key.display()
            ))
            .arg(format!("TCP:127.0.0.1:{port}"));
        let mut tls = ServerProcess::start(
            terminator,
            "socat (TLS in front of tansu)",
            folder.path().join("tls.log"),
            libc::SIGTERM,
        );
        tls.wait_until_ready(|| listening(tls_port));
        SecuredBroker {
            tls,
            _broker: broker,
            ca,
            tls_port,
            _folder: folder,
        }
    }

    /// How many connections the TLS listener accepted so far.
    pub fn connections(&self) -> usize {
        self.tls.log().matches("accepting connection from").count()
    }

    /// The bootstrap address (TLS).
    pub fn brokers(&self) -> String {
        format!("127.0.0.1:{}", self.tls_port)
    }

    /// The `[kafka.client]` properties for `user` with `scram`, trusting
    /// the CA in `ca_file`.
    pub fn client_properties(
        &self,
        scram: Scram,
        user: &str,
        ca_file: &std::path::Path,
    ) -> Vec<(&'static str, String)> {
        vec![
            ("security.protocol", "SASL_SSL".to_owned()),
            ("sasl.mechanism", scram.mechanism().to_owned()),
            ("sasl.username", user.to_owned()),
            ("ssl.ca.location", ca_file.display().to_string()),
        ]
    }

    /// A client of `user` (password `password`, `scram`) that trusts the
    /// broker's CA.
    pub fn client(&self, scram: Scram, user: &str, password: &str) -> KafkaClient {
        self.client_properties(scram, user, &self.ca.ca_pem())
            .into_iter()
            .fold(KafkaClient::new(self.brokers()), |client, (name, value)| {
                client.with_property(name, value)
            })
            .with_secret("sasl.password", password)
    }
}
