//! `flightstate parse FILE…`: prints each message as the typed value the
//! pipeline would see (JSON, see `docs/protocol.md`), or one line with the
//! reason it is rejected.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::protocol;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// SIS XML message files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Exit 0 when every file parses, 65 when any is rejected (the others are
/// still printed), 2 when a file cannot be read.
pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let parse_options = config.protocol.parse_options();
    let mut stdout = std::io::stdout().lock();
    let mut rejected = false;
    for path in &opts.files {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        match protocol::parse_reader(file, &parse_options) {
            Ok(message) => {
                let json = serde_json::to_string_pretty(&message)
                    .context("cannot print the message as JSON")?;
                if let Err(e) = writeln!(stdout, "{json}") {
                    // A closed pipe (`| head`) is the reader's choice, not a fault.
                    if e.kind() == std::io::ErrorKind::BrokenPipe {
                        return Ok(ExitCode::SUCCESS);
                    }
                    return Err(e).context("cannot write to stdout");
                }
            }
            Err(e) => {
                rejected = true;
                eprintln!("{}: rejected: {e}", path.display());
            }
        }
    }
    Ok(if rejected {
        ExitCode::from(super::EXIT_DATA_ERROR)
    } else {
        ExitCode::SUCCESS
    })
}
