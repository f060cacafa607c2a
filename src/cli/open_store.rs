//! Opening the state database of whichever dialect `database.url` names,
//! and handing it to a subcommand's generic work: the subcommands are
//! written once over [`Store`], and this is the one place that picks
//! `PgStore` or `OracleStore`.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use flightstate::config::{Config, Dialect, database_dialect};
use flightstate::store::{DatabaseFacts, SchemaLevel, Store, Timeouts};

/// A subcommand's work over any state database.
pub trait StoreWork {
    /// Does the work with `store`.
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode>;
}

/// Opens the configured state database (a pool of `pool_size`, every
/// connection with the `[database]` timeouts) and runs `work` with it.
pub fn with_store(
    config: &Config,
    pool_size: u32,
    work: impl StoreWork,
) -> anyhow::Result<ExitCode> {
    with_store_at(config.database_url()?, config, pool_size, work)
}

/// Like [`with_store`], on the state database at `url` (the read API's
/// own, read-only URL).
pub fn with_store_at(
    url: &str,
    config: &Config,
    pool_size: u32,
    work: impl StoreWork,
) -> anyhow::Result<ExitCode> {
    let wait = Duration::from_secs(config.database.connection_timeout_secs);
    let timeouts = config.state_database_timeouts();
    match database_dialect(url)? {
        Dialect::Postgres => postgres(url, pool_size, (wait, &timeouts), config, work),
        Dialect::Oracle => oracle(url, pool_size, wait, &timeouts, work),
    }
}

#[cfg(feature = "postgres")]
fn postgres(
    url: &str,
    pool_size: u32,
    (wait, timeouts): (Duration, &Timeouts),
    config: &Config,
    work: impl StoreWork,
) -> anyhow::Result<ExitCode> {
    use flightstate::store::pg::{DetailRows, NewFlights, PgStore};
    let new_flights = if config.database.copy_new_flights {
        NewFlights::Copy
    } else {
        NewFlights::Insert
    };
    let detail_rows = if config.database.copy_detail_rows {
        DetailRows::Copy
    } else {
        DetailRows::Insert
    };
    let store = PgStore::connect_with(url, pool_size, wait, timeouts)?;
    work.run(
        store
            .with_new_flights(new_flights)
            .with_detail_rows(detail_rows),
    )
}

#[cfg(not(feature = "postgres"))]
fn postgres(
    _: &str,
    _: u32,
    _: (Duration, &Timeouts),
    _: &Config,
    _: impl StoreWork,
) -> anyhow::Result<ExitCode> {
    anyhow::bail!("this build has no PostgreSQL support (feature `postgres`)")
}

#[cfg(feature = "oracle")]
fn oracle(
    url: &str,
    pool_size: u32,
    wait: Duration,
    timeouts: &Timeouts,
    work: impl StoreWork,
) -> anyhow::Result<ExitCode> {
    work.run(flightstate::store::oracle::OracleStore::connect_with(
        url, pool_size, wait, timeouts,
    )?)
}

#[cfg(not(feature = "oracle"))]
fn oracle(
    _: &str,
    _: u32,
    _: Duration,
    _: &Timeouts,
    _: impl StoreWork,
) -> anyhow::Result<ExitCode> {
    anyhow::bail!("this build has no Oracle support (feature `oracle`)")
}

/// The migrations this binary carries and those the state database at
/// `url` has applied.
pub fn schema_level(url: &str, config: &Config) -> anyhow::Result<SchemaLevel> {
    let level = match database_dialect(url)? {
        #[cfg(feature = "postgres")]
        Dialect::Postgres => {
            flightstate::store::pg::schema_level(url, &config.database.timeouts())?
        }
        #[cfg(feature = "oracle")]
        Dialect::Oracle => flightstate::store::oracle::schema_level(url)?,
        #[allow(unreachable_patterns)]
        other => anyhow::bail!("this build has no {other:?} support"),
    };
    Ok(level)
}

/// What the state database at `url` is (`flightstate doctor`).
pub fn inspect(url: &str, config: &Config) -> anyhow::Result<DatabaseFacts> {
    let facts = match database_dialect(url)? {
        #[cfg(feature = "postgres")]
        Dialect::Postgres => flightstate::store::pg::inspect(url, &config.database.timeouts())?,
        #[cfg(feature = "oracle")]
        Dialect::Oracle => flightstate::store::oracle::inspect(url)?,
        #[allow(unreachable_patterns)]
        other => anyhow::bail!("this build has no {other:?} support"),
    };
    Ok(facts)
}

/// Refuses a state database whose schema is behind or ahead of this
/// binary, before a long-running command (`run`, `pump`, `dispatch`,
/// `serve`) starts work on it; warns once when the station's clock falls
/// back to the host's zone.
pub fn check_before_start(url: &str, config: &Config) -> anyhow::Result<()> {
    schema_level(url, config)
        .context("cannot read the state database's schema level")?
        .check()?;
    warn_of_host_zone(config);
    Ok(())
}

/// One WARN when `station.time_zone` is unset.
pub fn warn_of_host_zone(config: &Config) {
    if !config.station_clock().is_configured() {
        tracing::warn!(
            "`station.time_zone` is not set: the station's clock is this host's zone; set the \
             station's IANA zone (e.g. \"Asia/Shanghai\")"
        );
    }
}
