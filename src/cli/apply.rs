//! `flightstate apply FILE --message-id N`: applies one message file to the
//! state database exactly as the pump would (same code, same `PROC_STATE`
//! record), and prints what became of it as JSON.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::{Config, Dialect, database_dialect};
use flightstate::pipeline::{Applied, Settings, apply_message};
use flightstate::store::ProcStatus;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// The SIS XML message file.
    file: PathBuf,
    /// The message's id, as the mailbox would give it (`CMINMSGS_ID`).
    #[arg(long)]
    message_id: i64,
}

/// Exit 0 when the message is applied (or was already), 65 when it is DEAD
/// or unsupported, 2 on an error that may pass (it is recorded FAILED).
pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let settings = Settings::from_config(config);
    let mut body = Vec::new();
    std::fs::File::open(&opts.file)
        .with_context(|| format!("cannot open {}", opts.file.display()))?
        // One byte past the limit is enough for the parser to refuse it.
        .take(settings.parse.max_bytes as u64 + 1)
        .read_to_end(&mut body)
        .with_context(|| format!("cannot read {}", opts.file.display()))?;
    let url = config.database_url()?;
    let now = chrono::Utc::now().naive_utc();
    let applied = match database_dialect(url)? {
        Dialect::Postgres => apply_pg(url, config, &settings, opts.message_id, &body, now)?,
        Dialect::Oracle => anyhow::bail!("the Oracle dialect cannot apply messages yet"),
    };
    println!("{}", serde_json::to_string_pretty(&applied)?);
    Ok(match applied.status() {
        ProcStatus::Succeeded => ExitCode::SUCCESS,
        ProcStatus::Dead | ProcStatus::Failed => ExitCode::from(super::EXIT_DATA_ERROR),
    })
}

#[cfg(feature = "postgres")]
fn apply_pg(
    url: &str,
    config: &Config,
    settings: &Settings,
    message_id: i64,
    body: &[u8],
    now: chrono::NaiveDateTime,
) -> anyhow::Result<Applied> {
    let store = flightstate::store::pg::PgStore::connect(
        url,
        1,
        std::time::Duration::from_secs(config.database.connection_timeout_secs),
    )?;
    apply_message(&store, settings, message_id, body, now)
        .with_context(|| format!("message {message_id} was not applied (recorded as FAILED)"))
}

#[cfg(not(feature = "postgres"))]
fn apply_pg(
    _url: &str,
    _config: &Config,
    _settings: &Settings,
    _message_id: i64,
    _body: &[u8],
    _now: chrono::NaiveDateTime,
) -> anyhow::Result<Applied> {
    anyhow::bail!("this build has no PostgreSQL support (feature `postgres`)")
}
