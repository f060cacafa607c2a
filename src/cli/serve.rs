//! `flightstate serve`: the read API and status page alone, and the API
//! thread that `flightstate run` starts (unless `api.bind` is empty).

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;

use anyhow::Context;
use flightstate::api::{self, Api};
use flightstate::config::Config;
use flightstate::mailbox::Mailbox;
use flightstate::store::Store;

use super::pump::stop_on_signals;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Listen on this `host:port` instead of `api.bind`.
    #[arg(long)]
    bind: Option<String>,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let stop = stop_on_signals()?;
    let bind = opts.bind.unwrap_or_else(|| config.api.bind.clone());
    if bind.is_empty() {
        anyhow::bail!("`api.bind` is empty: nothing to listen on; set it or pass --bind");
    }
    super::open_store::check_before_start(config.api_database_url()?, config)?;
    serve_blocking(config, bind, None, stop)
}

/// The mailbox, when `mailbox.url` is set: the API reports its backlog.
pub(super) fn optional_mailbox(config: &Config) -> anyhow::Result<Option<Arc<Mailbox>>> {
    if config.mailbox.url.is_none() {
        return Ok(None);
    }
    let mailbox =
        Mailbox::connect(config.mailbox_settings()?).context("cannot open the mailbox pool")?;
    Ok(Some(Arc::new(mailbox)))
}

/// The API on `store` and `mailbox`; without one, on a mailbox pool of its
/// own when `mailbox.url` is set.
fn api_for<S: Store + Clone>(
    config: &Config,
    store: S,
    mailbox: Option<Arc<Mailbox>>,
) -> anyhow::Result<Api<S>> {
    let mailbox = match mailbox {
        Some(mailbox) => Some(mailbox),
        None => optional_mailbox(config)?,
    };
    Ok(Api {
        store,
        mailbox,
        settings: config.api_settings()?,
    })
}

/// Serves on `store` (and `mailbox`, see [`api_for`]) until `stop` is set.
fn serve_on<S: Store + Clone>(
    config: &Config,
    store: S,
    mailbox: Option<Arc<Mailbox>>,
    bind: &str,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<ExitCode> {
    let api = api_for(config, store, mailbox)?;
    let running = api::start(api, bind, config.api.threads as usize, stop)
        .with_context(|| format!("cannot start the read API on {bind}"))?;
    running.join();
    Ok(ExitCode::SUCCESS)
}

struct Serve<'a> {
    config: &'a Config,
    bind: String,
    mailbox: Option<Arc<Mailbox>>,
    stop: Arc<AtomicBool>,
}

impl super::open_store::StoreWork for Serve<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        serve_on(self.config, store, self.mailbox, &self.bind, self.stop)
    }
}

/// Opens the API's own state-database pool and serves until `stop` is set.
fn serve_blocking(
    config: &Config,
    bind: String,
    mailbox: Option<Arc<Mailbox>>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<ExitCode> {
    super::open_store::with_store_at(
        config.api_database_url()?,
        config,
        config.api_pool_size(),
        Serve {
            config,
            bind,
            mailbox,
            stop,
        },
    )
}

/// The API thread of `flightstate run`: none when `api.bind` is empty. It
/// shares `store` (the pipeline's pool) unless `api.database_url` names a
/// database of its own, and `mailbox` (the pipeline's mailbox pool), so
/// that `/metrics` counts the connections the process holds. A failure to
/// serve (the port is taken) is logged and leaves the pipeline running:
/// the pump matters more than its window.
pub(super) fn spawn<S: Store + Clone>(
    config: &Config,
    store: &S,
    mailbox: &Arc<Mailbox>,
    stop: &Arc<AtomicBool>,
) -> anyhow::Result<Option<JoinHandle<()>>> {
    if config.api.bind.is_empty() {
        return Ok(None);
    }
    let config = config.clone();
    let store = store.clone();
    let mailbox = Some(Arc::clone(mailbox));
    let stop = Arc::clone(stop);
    let thread = std::thread::Builder::new()
        .name("api".to_owned())
        .spawn(move || {
            let bind = config.api.bind.clone();
            let outcome = if config.api.database_url.is_some() {
                serve_blocking(&config, bind, mailbox, Arc::clone(&stop))
            } else {
                serve_on(&config, store, mailbox, &bind, Arc::clone(&stop))
            };
            if let Err(e) = outcome {
                // The pipeline matters more than its window: it goes on.
                tracing::error!(
                    error = format!("{e:#}"),
                    "the read API stopped; the pipeline runs on without it"
                );
            }
        })?;
    Ok(Some(thread))
}
