//! `flightstate sql`: prints every handwritten statement of a dialect, file
//! by file, for DBA review.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::Config;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Which dialect's statements to print.
    #[arg(long, value_enum, default_value = "pg")]
    dialect: SqlDialect,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum SqlDialect {
    /// PostgreSQL (`sql/pg/`).
    Pg,
    /// Oracle 11g (`sql/oracle/`).
    Oracle,
}

impl SqlDialect {
    fn dir(self) -> &'static str {
        match self {
            SqlDialect::Pg => "pg",
            SqlDialect::Oracle => "oracle",
        }
    }
}

pub fn run(opts: Opts, _config: &Config) -> anyhow::Result<ExitCode> {
    let statements = match opts.dialect {
        SqlDialect::Pg => pg_statements()?,
        SqlDialect::Oracle => oracle_statements()?,
    };
    let mut out = std::io::stdout().lock();
    for (name, text) in statements {
        let written = writeln!(
            out,
            "-- file: sql/{}/{name}.sql\n{}",
            opts.dialect.dir(),
            text.trim_end()
        )
        .and_then(|()| writeln!(out));
        match written {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
            Err(e) => return Err(e).context("cannot write to stdout"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(feature = "postgres")]
fn pg_statements() -> anyhow::Result<&'static [(&'static str, &'static str)]> {
    Ok(flightstate::store::pg::statements())
}

#[cfg(not(feature = "postgres"))]
fn pg_statements() -> anyhow::Result<&'static [(&'static str, &'static str)]> {
    anyhow::bail!("this build has no PostgreSQL support (feature `postgres`)")
}

#[cfg(feature = "oracle")]
fn oracle_statements() -> anyhow::Result<&'static [(&'static str, &'static str)]> {
    Ok(flightstate::store::oracle::statements())
}

#[cfg(not(feature = "oracle"))]
fn oracle_statements() -> anyhow::Result<&'static [(&'static str, &'static str)]> {
    anyhow::bail!("this build has no Oracle support (feature `oracle`)")
}
