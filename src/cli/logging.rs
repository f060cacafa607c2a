//! Logging set-up: `RUST_LOG` filters (default `info`), and
//! `log.format = "json"` (env `FLIGHTSTATE_LOG_FORMAT`) prints one JSON
//! object per line for log collectors. Colours only on a terminal: a log
//! written to a file or a pipe carries no escape sequences.

use std::io::IsTerminal;

use flightstate::config::LogConfig;
use tracing_subscriber::EnvFilter;

pub fn init(config: &LogConfig) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    // A second initialisation (never expected in the binary) is harmless,
    // so its error is ignored.
    let _ = if config.format.as_deref() == Some("json") {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
