//! A PostgreSQL server of the test's own (the newest server binaries in
//! Debian's `/usr/lib/postgresql/VERSION/bin`), for what the shared server cannot be
//! made to do: TLS with a certificate the test issued, or no TLS at all.
//!
//! `initdb` and `postgres` refuse to run as root, so both run as the
//! `postgres` account in a folder it owns, with the Unix socket there too.
//! The server logs every connection (`log_connections`), each line saying
//! whether the session is TLS: the server's own word on it. A role
//! `flightstate` with a password (scram-sha-256) is the only account that
//! may connect over TCP, and with TLS on only over TLS (`hostssl`); the
//! test itself connects as the superuser over the socket. Stopped and
//! removed when dropped.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};

use super::server::{Folder, ServerProcess, free_port, password, set_up, tcp_url};
use super::tls::Issued;

/// The role flightstate connects as.
pub const USER: &str = "flightstate";

/// A running private PostgreSQL server.
pub struct PrivatePostgres {
    // Dropped in this order: the server stops before its folder goes.
    process: ServerProcess,
    folder: Folder,
    port: u16,
    password: String,
}

/// The folder of the newest PostgreSQL's server binaries.
pub fn bin_dir() -> PathBuf {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL's server binaries (scripts/services installs them)")
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .expect("initdb in /usr/lib/postgresql/VERSION/bin")
        .1
}

/// The uid and gid of `account`.
pub fn account(name: &str) -> (u32, u32) {
    let id = |flag: &str| {
        let out = Command::new("id")
            .args([flag, name])
            .output()
            .expect("run id");
        assert!(out.status.success(), "no account {name}");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse::<u32>()
            .expect("a numeric id")
    };
    (id("-u"), id("-g"))
}

/// `path` handed to `uid:gid`, with `mode`.
pub fn hand_over(path: &Path, (uid, gid): (u32, u32), mode: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(gid)).expect("chown to postgres");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

impl PrivatePostgres {
    /// Initialises and starts a server on a free port: with `tls`, `ssl =
    /// on` with that certificate and TCP connections only over TLS;
    /// without, `ssl = off`. Creates the role [`USER`] with a password and
    /// its database `flightstate`.
    #[track_caller]
    pub fn start(tls: Option<&Issued>) -> PrivatePostgres {
        let owner = account("postgres");
        let folder = Folder::new("pg");
        hand_over(folder.path(), owner, 0o700);
        let data = folder.path().join("data");
        let bin = bin_dir();
        let as_postgres = |program: &str| {
            let mut command = Command::new(bin.join(program));
            command.uid(owner.0).gid(owner.1).current_dir(folder.path());
            command
        };
        let mut init = as_postgres("initdb");
        init.args([
            "--no-sync",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        ])
        .args(["-U", "postgres", "-D"])
        .arg(&data);
        set_up(init, "initdb");

        let tcp = match tls {
            Some(_) => "hostssl",
            None => "host",
        };
        std::fs::write(
            data.join("pg_hba.conf"),
            format!("local all postgres trust\n{tcp} all {USER} 127.0.0.1/32 scram-sha-256\n"),
        )
        .expect("write pg_hba.conf");

        let port = free_port();
        let mut server = as_postgres("postgres");
        server.arg("-D").arg(&data).args(["-p", &port.to_string()]);
        server.arg("-k").arg(folder.path());
        for setting in [
            "listen_addresses=127.0.0.1",
            "log_connections=on",
            "fsync=off",
            "shared_buffers=16MB",
        ] {
            server.args(["-c", setting]);
        }
        match tls {
            Some(issued) => {
                // The CA's folder is under root's home, closed to postgres.
                let (cert, key) = (
                    folder.path().join("server.pem"),
                    folder.path().join("server.key"),
                );
                std::fs::copy(&issued.cert, &cert).expect("copy the server certificate");
                std::fs::copy(&issued.key, &key).expect("copy the server key");
                hand_over(&cert, owner, 0o644);
                hand_over(&key, owner, 0o600);
                server.args(["-c", "ssl=on"]);
                server
                    .arg("-c")
                    .arg(format!("ssl_cert_file={}", cert.display()));
                server
                    .arg("-c")
                    .arg(format!("ssl_key_file={}", key.display()));
            }
            None => {
                server.args(["-c", "ssl=off"]);
            }
        }
        let mut process = ServerProcess::start(
            server,
            "postgres",
            folder.path().join("server.log"),
            libc::SIGINT,
        );
        let admin_url = socket_url(folder.path(), port, "postgres");
        process.wait_until_ready(|| PgConnection::establish(&admin_url).is_ok());

        let password = password();
        let pg = PrivatePostgres {
            process,
            folder,
            port,
            password,
        };
        pg.admin("postgres")
            .batch_execute(&format!(
                "CREATE ROLE {USER} LOGIN PASSWORD '{}'",
                pg.password
            ))
            .expect("create the role");
        pg.create_database("flightstate");
        pg
    }

    /// A new database named `name`, owned by [`USER`].
    #[track_caller]
    pub fn create_database(&self, name: &str) {
        self.admin("postgres")
            .batch_execute(&format!("CREATE DATABASE {name} OWNER {USER}"))
            .unwrap_or_else(|e| panic!("create database {name}: {e}"));
    }

    /// The URL flightstate is given: [`USER`] and its password, over TCP,
    /// to `database`, with the libpq parameters `params` (`a=b&c=d`).
    pub fn url(&self, database: &str, params: &str) -> String {
        tcp_url(
            "postgres",
            (USER, &self.password),
            self.port,
            database,
            params,
        )
    }

    /// [`USER`]'s password.
    pub fn password(&self) -> &str {
        &self.password
    }

    /// A superuser connection to `database`, over the Unix socket.
    #[track_caller]
    pub fn admin(&self, database: &str) -> PgConnection {
        PgConnection::establish(&socket_url(self.folder.path(), self.port, database))
            .unwrap_or_else(|e| panic!("connect to the private server's {database}: {e}"))
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        self.process.log()
    }

    /// Every connection the server let [`USER`] open to `database`, as it
    /// logged it (`connection authorized: … SSL enabled (protocol=…)` for a
    /// TLS session).
    pub fn sessions_of(&self, database: &str) -> Vec<String> {
        let opened = format!("connection authorized: user={USER} database={database} ");
        self.log()
            .lines()
            .filter(|line| line.contains(&opened))
            .map(str::to_owned)
            .collect()
    }
}

fn socket_url(socket_dir: &Path, port: u16, database: &str) -> String {
    format!(
        "postgres:///{database}?host={}&port={port}&user=postgres",
        socket_dir.display()
    )
}
