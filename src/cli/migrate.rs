//! `flightstate migrate`: brings the state database's schema up to date.

use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::{Config, Dialect, database_dialect};

#[derive(Debug, clap::Args)]
pub struct Opts {}

pub fn run(_opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let url = config.database_url()?;
    match database_dialect(url)? {
        Dialect::Postgres => migrate_pg(url, config),
        Dialect::Oracle => migrate_oracle(url),
    }
}

#[cfg(feature = "oracle")]
fn migrate_oracle(url: &str) -> anyhow::Result<ExitCode> {
    let applied = flightstate::store::oracle::run_pending_migrations(url).context(
        "cannot migrate the Oracle state database (FLIGHTSTATE_MIGRATION shows where it stopped)",
    )?;
    if applied.is_empty() {
        tracing::info!("state database is up to date");
    }
    for name in &applied {
        tracing::info!(migration = %name, "applied");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "oracle"))]
fn migrate_oracle(_url: &str) -> anyhow::Result<ExitCode> {
    anyhow::bail!("this build has no Oracle support (feature `oracle`)")
}

#[cfg(feature = "postgres")]
fn migrate_pg(url: &str, config: &Config) -> anyhow::Result<ExitCode> {
    let applied =
        flightstate::store::pg::run_pending_migrations_with(url, &config.database.timeouts())
            .context("cannot migrate the state database")?;
    if applied.is_empty() {
        tracing::info!("state database is up to date");
    }
    for name in &applied {
        tracing::info!(migration = %name, "applied");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "postgres"))]
fn migrate_pg(_url: &str, _config: &Config) -> anyhow::Result<ExitCode> {
    anyhow::bail!("this build has no PostgreSQL support (feature `postgres`)")
}
