//! `flightstate dead list | show | requeue`: the dead letters, for an
//! operator (docs/operations.md).
//!
//! A requeue is an explicit, recorded action, and a protocol across the
//! state database and the mailbox: it is `operator::requeue` (its doc says
//! the steps), the same for the page. This command parses, names the
//! operator and prints what became of each message.

use std::process::ExitCode;

use anyhow::Context;
use chrono::{NaiveDate, NaiveDateTime};
use flightstate::config::Config;
use flightstate::journal::write_back_intent;
use flightstate::mailbox::{Mailbox, StoredMessage};
use flightstate::operator::{
    Actor, MAX_LETTERS, Requeued, Via, operator_name, requeue, requeue_matching,
};
use flightstate::store::{
    DeadFilter, DeadOps, JournalOps, MessageRecord, ProcStatus, Store, StoredCall,
};

#[derive(Debug, clap::Args)]
pub struct Opts {
    #[command(subcommand)]
    command: DeadCommand,
}

#[derive(Debug, clap::Subcommand)]
enum DeadCommand {
    /// List the DEAD messages: id, type/subtype, error kind and reason, when.
    List {
        /// Only this error kind (BAD_INPUT, DATA_REJECTED, UNSUPPORTED, …).
        #[arg(long)]
        kind: Option<String>,
        /// Only those recorded at or after this UTC time
        /// (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS]`).
        #[arg(long, value_parser = parse_since)]
        since: Option<NaiveDateTime>,
        #[command(flatten)]
        matching: Matching,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show one message: its record, its write-backs and its mailbox row
    /// with the body.
    Show {
        /// The message id (`CMINMSGS_ID`).
        id: i64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Apply DEAD messages again through the pump, once their cause is
    /// fixed; the requeue is recorded with who and when.
    Requeue {
        /// The message ids.
        #[arg(
            required_unless_present_any = ["kind", "error", "day"],
            conflicts_with_all = ["kind", "error", "day"]
        )]
        ids: Vec<i64>,
        /// Every DEAD message of this error kind instead.
        #[arg(long)]
        kind: Option<String>,
        #[command(flatten)]
        matching: Matching,
        /// Who requeues (recorded); default: the operating-system user
        /// (`$USER`).
        #[arg(long)]
        by: Option<String>,
    },
}

/// The filters `list` and `requeue` share besides `--kind`.
#[derive(Debug, clap::Args)]
struct Matching {
    /// Only those whose error text (the reason) holds this text, as
    /// written (case counts).
    #[arg(long, value_name = "TEXT")]
    error: Option<String>,
    /// Only those recorded on this UTC day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    day: Option<NaiveDate>,
}

fn parse_since(text: &str) -> Result<NaiveDateTime, String> {
    for format in ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M"] {
        if let Ok(time) = NaiveDateTime::parse_from_str(text, format) {
            return Ok(time);
        }
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(|day| day.and_time(chrono::NaiveTime::MIN))
        .map_err(|_| format!("{text:?} is not a UTC time (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS])"))
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::with_store(config, 1, Dead { config, opts })
}

struct Dead<'a> {
    config: &'a Config,
    opts: Opts,
}

impl super::open_store::StoreWork for Dead<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        match self.opts.command {
            DeadCommand::List {
                kind,
                since,
                matching,
                json,
            } => {
                let filter = DeadFilter {
                    error_kind: kind.as_deref(),
                    since,
                    error_text: matching.error.as_deref(),
                    day: matching.day,
                };
                list(&store, filter, json)
            }
            DeadCommand::Show { id, json } => show(&store, &mailbox(self.config)?, id, json),
            DeadCommand::Requeue {
                ids,
                kind,
                matching,
                by,
            } => {
                let actor = Actor::new(&operator_name(by)?, Via::CommandLine)?;
                let mailbox = mailbox(self.config)?;
                let requeued = if ids.is_empty() {
                    let filter = DeadFilter {
                        error_kind: kind.as_deref(),
                        since: None,
                        error_text: matching.error.as_deref(),
                        day: matching.day,
                    };
                    requeue_matching(&store, &mailbox, filter, &actor)?
                } else {
                    requeue(&store, &mailbox, &ids, &actor)?
                };
                Ok(print_requeued(&requeued))
            }
        }
    }
}

pub(super) fn mailbox(config: &Config) -> anyhow::Result<Mailbox> {
    Mailbox::connect(config.mailbox_settings()?).context("cannot open the mailbox pool")
}

fn list<S: Store>(store: &S, filter: DeadFilter<'_>, json: bool) -> anyhow::Result<ExitCode> {
    let letters = store.transaction(|tx| tx.select_dead_letters(filter, MAX_LETTERS))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&letters)?);
    } else {
        print!("{}", list_text(&letters));
    }
    Ok(ExitCode::SUCCESS)
}

fn list_text(letters: &[MessageRecord]) -> String {
    let mut text = String::new();
    for r in letters {
        text.push_str(&format!(
            "{}  {}/{}  {}  {}  {}\n",
            r.message_id,
            r.msg_type.as_deref().unwrap_or("-"),
            r.msg_subtype.as_deref().unwrap_or("-"),
            r.error_kind.as_deref().unwrap_or("-"),
            r.updated_at.format("%Y-%m-%d %H:%M:%S"),
            r.error_text.as_deref().unwrap_or(""),
        ));
    }
    text.push_str(&format!("{} dead letter(s)\n", letters.len()));
    text
}

/// One message as `dead show` prints it.
#[derive(serde::Serialize)]
struct Shown {
    record: Option<MessageRecord>,
    write_backs: Vec<WriteBackCall>,
    mailbox: Option<StoredMessage>,
}

/// One journaled write-back of the message.
#[derive(serde::Serialize)]
struct WriteBackCall {
    sub_key: String,
    call_id: i64,
    status: String,
    payload: String,
    attempt: i32,
}

fn show<S: Store>(store: &S, mailbox: &Mailbox, id: i64, json: bool) -> anyhow::Result<ExitCode> {
    let statuses = mailbox.write_back_statuses();
    let (record, write_backs) = store.transaction(|tx| {
        let record = tx.select_message_record(id)?;
        let requeues = record.as_ref().map_or(0, |r| r.requeue_count);
        let mut calls = Vec::new();
        // Every write-back the message can have: one per requeue (0 = as
        // first delivered), each followed by its redeliveries.
        for requeue in 0..=requeues {
            for delivery in 0.. {
                let Some(intent) =
                    write_back_intent(&statuses, id, ProcStatus::Dead, requeue, delivery)
                else {
                    break;
                };
                let Some(call) = tx.select_effect_call(&intent.idempotency_key())? else {
                    break;
                };
                calls.push(call_of(intent.sub_key, call));
            }
        }
        Ok::<_, anyhow::Error>((record, calls))
    })?;
    let shown = Shown {
        record,
        write_backs,
        mailbox: mailbox.stored_message(id)?,
    };
    if shown.record.is_none() && shown.mailbox.is_none() {
        anyhow::bail!("no message {id}: neither PROC_STATE nor the mailbox knows it");
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&shown)?);
    } else {
        print!("{}", show_text(id, &shown));
    }
    Ok(ExitCode::SUCCESS)
}

fn call_of(sub_key: String, call: StoredCall) -> WriteBackCall {
    WriteBackCall {
        sub_key,
        call_id: call.call_id,
        status: call.status.code().to_owned(),
        payload: call.payload,
        attempt: call.attempt,
    }
}

fn show_text(id: i64, shown: &Shown) -> String {
    let time = |t: Option<NaiveDateTime>| {
        t.map_or_else(
            || "-".to_owned(),
            |t| t.format("%Y-%m-%d %H:%M:%S").to_string(),
        )
    };
    let mut text = format!("message {id}\n");
    match &shown.record {
        Some(r) => {
            text.push_str(&format!(
                "  status:      {} ({})\n  type:        {}/{}\n  reason:      {}\n  attempts:    {}\n  first seen:  {} UTC\n  updated:     {} UTC\n  requeued:    {} time(s), last by {} at {} UTC\n",
                r.status.code(),
                r.error_kind.as_deref().unwrap_or("-"),
                r.msg_type.as_deref().unwrap_or("-"),
                r.msg_subtype.as_deref().unwrap_or("-"),
                r.error_text.as_deref().unwrap_or("-"),
                r.attempts,
                time(Some(r.first_seen_at)),
                time(Some(r.updated_at)),
                r.requeue_count,
                r.requeued_by.as_deref().unwrap_or("-"),
                time(r.requeued_at),
            ));
        }
        None => text.push_str("  never seen by flightstate (no PROC_STATE row)\n"),
    }
    for call in &shown.write_backs {
        text.push_str(&format!(
            "  write-back:  {} → {} ({}, call {}, attempt {})\n",
            call.sub_key, call.payload, call.status, call.call_id, call.attempt
        ));
    }
    match &shown.mailbox {
        Some(m) => text.push_str(&format!(
            "  mailbox row: status {}, received {}, processed {}\n\n{}\n",
            m.status.as_deref().unwrap_or("-"),
            time(m.received_at),
            time(m.processed_at),
            m.body
        )),
        None => text.push_str("  mailbox row: gone\n"),
    }
    text
}

/// Prints what became of each message; exit 1 unless every one is on its
/// way.
fn print_requeued(requeued: &[Requeued]) -> ExitCode {
    for r in requeued {
        println!("{r}");
    }
    if requeued.is_empty() {
        println!("no dead letter to requeue");
    }
    if requeued.iter().all(Requeued::ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
