//! `flightstate enqueue FILE…`: puts message files into the inbound mailbox
//! (`CMINMSGS`) as pending rows, in the order given, as AODB would. For
//! demos, tests and re-injecting a message by hand; `--create-tables` makes
//! AODB's tables first in a mailbox of one's own.
//!
//! A file larger than the mailbox column (`MEDIUMTEXT`, 16,777,215 bytes)
//! is refused before anything is queued (exit 65): sent anyway, the server
//! would drop the connection mid-statement.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::mailbox::{MAX_BODY_BYTES, Mailbox};

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// SIS XML message files, queued in this order.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Create AODB's mailbox tables first if they are missing (a demo or
    /// test mailbox only: a site's mailbox belongs to AODB).
    #[arg(long)]
    create_tables: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let mut too_large = false;
    for path in &opts.files {
        let size = std::fs::metadata(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .len();
        if size > MAX_BODY_BYTES as u64 {
            eprintln!(
                "flightstate: {} is {size} bytes; a mailbox message holds at most \
                 {MAX_BODY_BYTES} bytes (CMINMSGS_CLOB_MSG is a MEDIUMTEXT): not queued",
                path.display()
            );
            too_large = true;
        }
    }
    if too_large {
        // Nothing is queued: the files after a refused one would jump it.
        return Ok(ExitCode::from(super::EXIT_DATA_ERROR));
    }
    let mailbox =
        Mailbox::connect(config.mailbox_settings()?).context("cannot open the mailbox pool")?;
    if opts.create_tables {
        mailbox.create_tables()?;
    }
    let (mut first, mut last) = (None, None);
    let mut progress = super::progress::Progress::new("queued", opts.files.len() as u64);
    for path in &opts.files {
        let body = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {} as UTF-8 text", path.display()))?;
        let (msg_type, subtype) = meta_of(&body);
        let id = mailbox
            .enqueue(&body, msg_type, subtype)
            .with_context(|| format!("cannot queue {}", path.display()))?;
        first.get_or_insert(id);
        last = Some(id);
        progress.inc();
    }
    tracing::info!(
        messages = opts.files.len(),
        first_id = first,
        last_id = last,
        "queued in the mailbox"
    );
    Ok(ExitCode::SUCCESS)
}

/// META TYPE and STYP for AODB's subsystem columns, read cheaply; a file
/// that does not have them is queued all the same (the pump judges it).
fn meta_of(body: &str) -> (Option<&str>, Option<&str>) {
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let start = body.find(&open)? + open.len();
        let end = body[start..].find('<')? + start;
        let value = body[start..end].trim();
        // AODB's subsystem columns are VARCHAR(4).
        (!value.is_empty() && value.len() <= 4).then_some(value)
    };
    (tag("TYPE"), tag("STYP"))
}
