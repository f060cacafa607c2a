//! A MariaDB server of the test's own (`mariadb-install-db` and `mariadbd`
//! of the machine), for what the shared server cannot be made to do: TLS
//! with a certificate the test issued.
//!
//! It runs as root (`--user=root`) in a folder of its own, with its socket
//! there; the test connects as root over that socket. The account
//! flightstate is given, `flightstate`, has a password and may connect over
//! TCP only; with TLS on it is `REQUIRE SSL`, so the server itself refuses
//! it a session without TLS. The general log records every session and how
//! it came (`using SSL/TLS`, `using TCP/IP`): the server's own word on it.
//! Stopped and removed when dropped.

use std::path::Path;
use std::process::Command;

use mysql::prelude::Queryable;

use super::server::{Folder, ServerProcess, free_port, password, set_up, tcp_url};
use super::tls::Issued;

/// The account flightstate connects as.
pub const USER: &str = "flightstate";

/// A running private MariaDB server.
pub struct PrivateMariaDb {
    // Dropped in this order: the server stops before its folder goes.
    process: ServerProcess,
    folder: Folder,
    port: u16,
    password: String,
    require_tls: bool,
}

impl PrivateMariaDb {
    /// Initialises and starts a server on a free port, with `tls` its
    /// certificate (none: no TLS at all).
    #[track_caller]
    pub fn start(tls: Option<&Issued>) -> PrivateMariaDb {
        let folder = Folder::new("mariadb");
        let data = folder.path().join("data");
        let mut init = Command::new("mariadb-install-db");
        init.arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .args([
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ]);
        set_up(init, "mariadb-install-db");

        let port = free_port();
        let path = |name: &str| folder.path().join(name).display().to_string();
        let mut server = Command::new("mariadbd");
        // --no-defaults must come first: the machine's my.cnf is not ours.
        server.arg("--no-defaults").args([
            format!("--datadir={}", data.display()),
            format!("--port={port}"),
            format!("--socket={}", path("mysqld.sock")),
            format!("--pid-file={}", path("mariadbd.pid")),
            format!("--general-log-file={}", path("general.log")),
            "--general-log=1".to_owned(),
            "--bind-address=127.0.0.1".to_owned(),
            // Accounts are matched on the address, never a looked-up name.
            "--skip-name-resolve".to_owned(),
            "--user=root".to_owned(),
            "--innodb-buffer-pool-size=16M".to_owned(),
        ]);
        if let Some(issued) = tls {
            server.arg(format!("--ssl-cert={}", issued.cert.display()));
            server.arg(format!("--ssl-key={}", issued.key.display()));
        }
        let mut process = ServerProcess::start(
            server,
            "mariadbd",
            folder.path().join("server.log"),
            libc::SIGTERM,
        );
        let socket = folder.path().join("mysqld.sock");
        process.wait_until_ready(|| socket.exists() && admin_on(&socket).is_ok());
        PrivateMariaDb {
            process,
            folder,
            port,
            password: password(),
            require_tls: tls.is_some(),
        }
    }

    /// A new database named `name`, open to [`USER`] (created with the
    /// first one).
    #[track_caller]
    pub fn create_database(&self, name: &str) {
        let mut admin = self.admin();
        let require = if self.require_tls { "REQUIRE SSL" } else { "" };
        // Test database and account names are the one place identifiers
        // are formatted.
        for statement in [
            format!("CREATE DATABASE {name} CHARACTER SET utf8mb4"),
            format!(
                "CREATE USER IF NOT EXISTS '{USER}'@'127.0.0.1' IDENTIFIED BY '{}' {require}",
                self.password
            ),
            format!("GRANT ALL ON {name}.* TO '{USER}'@'127.0.0.1'"),
        ] {
            admin
                .query_drop(&statement)
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
    }

    /// The URL flightstate is given: [`USER`] and its password, over TCP,
    /// to `database`, with the `mysql` crate's parameters `params`.
    pub fn url(&self, database: &str, params: &str) -> String {
        tcp_url("mysql", (USER, &self.password), self.port, database, params)
    }

    /// [`USER`]'s password.
    pub fn password(&self) -> &str {
        &self.password
    }

    /// A root connection over the Unix socket.
    #[track_caller]
    pub fn admin(&self) -> mysql::Conn {
        admin_on(&self.folder.path().join("mysqld.sock"))
            .unwrap_or_else(|e| panic!("connect to the private MariaDB: {e}"))
    }

    /// Every session the server gave [`USER`] on `database`, as its general
    /// log has it (`… on DB using SSL/TLS` for a TLS session).
    pub fn sessions_of(&self, database: &str) -> Vec<String> {
        let opened = format!("Connect\t{USER}@127.0.0.1 on {database} ");
        std::fs::read_to_string(self.folder.path().join("general.log"))
            .unwrap_or_default()
            .lines()
            .filter(|line| line.contains(&opened))
            .map(str::to_owned)
            .collect()
    }

    /// The server's error log so far.
    pub fn log(&self) -> String {
        self.process.log()
    }
}

fn admin_on(socket: &Path) -> Result<mysql::Conn, mysql::Error> {
    mysql::Conn::new(
        mysql::OptsBuilder::new()
            .socket(Some(socket.to_string_lossy()))
            .user(Some("root")),
    )
}
