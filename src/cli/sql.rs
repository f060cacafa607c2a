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
}

pub fn run(opts: Opts, _config: &Config) -> anyhow::Result<ExitCode> {
    let statements = match opts.dialect {
        SqlDialect::Pg => pg_statements()?,
    };
    let mut out = std::io::stdout().lock();
    for (name, text) in statements {
        let written = writeln!(out, "-- file: sql/pg/{name}.sql\n{}", text.trim_end())
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
