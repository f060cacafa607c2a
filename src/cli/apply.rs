//! `flightstate apply FILE --message-id N`: applies one message file to the
//! state database exactly as the pump would (same code, same `PROC_STATE`
//! record), and prints what became of it as JSON.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::pipeline::{Rules, apply_message};
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
    let rules = config.pipeline_rules();
    let mut body = Vec::new();
    std::fs::File::open(&opts.file)
        .with_context(|| format!("cannot open {}", opts.file.display()))?
        // One byte past the limit is enough for the parser to refuse it.
        .take(rules.parse.max_bytes as u64 + 1)
        .read_to_end(&mut body)
        .with_context(|| format!("cannot read {}", opts.file.display()))?;
    let now = chrono::Utc::now().naive_utc();
    super::open_store::with_store(
        config,
        1,
        Apply {
            rules: &rules,
            message_id: opts.message_id,
            body: &body,
            now,
        },
    )
}

/// One message applied to whichever state database is configured.
struct Apply<'a> {
    rules: &'a Rules,
    message_id: i64,
    body: &'a [u8],
    now: chrono::NaiveDateTime,
}

impl super::open_store::StoreWork for Apply<'_> {
    fn run<S: flightstate::store::Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let applied = apply_message(&store, self.rules, self.message_id, self.body, self.now)
            .with_context(|| {
                format!(
                    "message {} was not applied (recorded as FAILED)",
                    self.message_id
                )
            })?;
        println!("{}", serde_json::to_string_pretty(&applied)?);
        Ok(match applied.status() {
            ProcStatus::Succeeded => ExitCode::SUCCESS,
            ProcStatus::Dead | ProcStatus::Failed | ProcStatus::Held => {
                ExitCode::from(super::EXIT_DATA_ERROR)
            }
        })
    }
}
