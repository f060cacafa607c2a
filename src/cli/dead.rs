//! `flightstate dead list | show | requeue`: the dead letters, for an
//! operator (docs/operations.md).
//!
//! A requeue is an explicit, recorded action: `PROC_STATE` counts it and
//! keeps who and when (one state transaction), then the message's mailbox
//! row is set pending again, so that the pump applies it through the normal
//! path and writes its new outcome back by a call of its own
//! (`backfill:{id}:requeue:{n}`). The state transaction comes first: a row
//! pending again while its message is still DEAD would only be written back
//! DEAD once more.

use std::process::ExitCode;

use anyhow::Context;
use chrono::{NaiveDate, NaiveDateTime};
use flightstate::config::Config;
use flightstate::journal::write_back_intent;
use flightstate::mailbox::{Mailbox, StoredMessage};
use flightstate::store::{
    DeadFilter, DeadOps, JournalOps, MessageRecord, ProcStatus, REQUEUED, Store, StoredCall,
};

/// At most this many dead letters are listed, or requeued by `--kind`, at
/// once: a list longer than that is read with `--since`.
const MAX_LETTERS: i64 = 10_000;

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
        #[arg(required_unless_present = "kind", conflicts_with = "kind")]
        ids: Vec<i64>,
        /// Every DEAD message of this error kind instead.
        #[arg(long)]
        kind: Option<String>,
        /// Who requeues (recorded); default: the operating-system user
        /// (`$USER`).
        #[arg(long)]
        by: Option<String>,
    },
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
            DeadCommand::List { kind, since, json } => list(&store, kind.as_deref(), since, json),
            DeadCommand::Show { id, json } => show(&store, &mailbox(self.config)?, id, json),
            DeadCommand::Requeue { ids, kind, by } => {
                let by = operator(by)?;
                requeue(&store, &mailbox(self.config)?, &ids, kind.as_deref(), &by)
            }
        }
    }
}

pub(super) fn mailbox(config: &Config) -> anyhow::Result<Mailbox> {
    Mailbox::connect(config.mailbox_settings()?).context("cannot open the mailbox pool")
}

/// The operator named by `--by`, else `$USER`, else the account the
/// process runs as (as `psql` does): systemd units, cron and some `sudo`
/// shells leave `$USER` unset.
pub(super) fn operator(by: Option<String>) -> anyhow::Result<String> {
    let name = [by, std::env::var("USER").ok()]
        .into_iter()
        .flatten()
        .map(|n| n.trim().to_owned())
        .find(|n| !n.is_empty())
        .or_else(account_name);
    let name = name.context(
        "no operator name: give `--by NAME` ($USER is unset and this process's user id has no \
         account name)",
    )?;
    // PROC_STATE.REQUEUED_BY is VARCHAR(128).
    Ok(name.chars().take(128).collect())
}

fn list<S: Store>(
    store: &S,
    kind: Option<&str>,
    since: Option<NaiveDateTime>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let filter = DeadFilter {
        error_kind: kind,
        since,
    };
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

fn requeue<S: Store>(
    store: &S,
    mailbox: &Mailbox,
    ids: &[i64],
    kind: Option<&str>,
    by: &str,
) -> anyhow::Result<ExitCode> {
    let now = flightstate::station::utc_now();
    let named: Vec<i64> = match kind {
        Some(kind) => {
            let filter = DeadFilter {
                error_kind: Some(kind),
                since: None,
            };
            let letters = store.transaction(|tx| tx.select_dead_letters(filter, MAX_LETTERS))?;
            letters.into_iter().map(|r| r.message_id).collect()
        }
        None => ids.to_vec(),
    };
    // Only rows written back: a DEAD write-back still to be made would
    // land after the requeue and leave the row DEAD whatever the pump does.
    let mut all_done = true;
    let mut asked = Vec::with_capacity(named.len());
    for id in named {
        match mailbox.stored_message(id)? {
            Some(row) if row.processed_at.is_some() => asked.push(id),
            Some(_) => {
                all_done = false;
                println!(
                    "{id}: not requeued: its mailbox row is pending (its write-back is not made yet, or it is requeued already); try again once it is written back"
                );
            }
            None => {
                all_done = false;
                println!("{id}: not requeued: its mailbox row is gone");
            }
        }
    }
    let (requeued, records) = store.transaction(|tx| {
        let requeued = tx.requeue_dead_letters(&asked, by, now)?;
        let mut records = Vec::with_capacity(asked.len());
        for id in &asked {
            records.push(tx.select_message_record(*id)?);
        }
        Ok::<_, anyhow::Error>((requeued, records))
    })?;
    for (id, record) in asked.iter().zip(records) {
        let fresh = requeued.iter().find(|(r, _)| r == id).map(|(_, n)| *n);
        let waiting = record.as_ref().is_some_and(|r| {
            r.status == ProcStatus::Failed && r.error_kind.as_deref() == Some(REQUEUED)
        });
        if !waiting {
            all_done = false;
            match record {
                Some(r) => println!("{id}: not requeued: it is {}, not DEAD", r.status.code()),
                None => println!("{id}: not requeued: no such message in PROC_STATE"),
            }
            continue;
        }
        if let Some(n) = fresh {
            tracing::info!(
                msg.id = id,
                requeue = n,
                requeued_by = by,
                "dead letter requeued"
            );
        }
        let what = fresh.map_or_else(
            || "already requeued".to_owned(),
            |n| format!("requeued (requeue {n}, by {by})"),
        );
        match mailbox.requeue_message(*id) {
            Ok(true) => println!("{id}: {what}; its mailbox row is pending again"),
            Ok(false) => {
                all_done = false;
                println!(
                    "{id}: {what}; its mailbox row was set pending or removed meanwhile: see `dead show {id}`"
                );
            }
            Err(e) => {
                all_done = false;
                println!(
                    "{id}: {what}; its mailbox row could not be set pending ({e:#}): run `dead requeue {id}` again"
                );
            }
        }
    }
    if asked.is_empty() && all_done {
        println!("no dead letter to requeue");
    }
    Ok(if all_done {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The name of the account this process runs as (its effective user id),
/// from the system's user database.
fn account_name() -> Option<String> {
    let mut buffer = vec![0_u8; 16 * 1024];
    // SAFETY: `passwd` is plain data that getpwuid_r fills; `buffer` outlives
    // the `pw_name` pointer read below, and its length is passed.
    unsafe {
        let mut entry: libc::passwd = std::mem::zeroed();
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let status = libc::getpwuid_r(
            libc::geteuid(),
            &raw mut entry,
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            &raw mut found,
        );
        if status != 0 || found.is_null() || entry.pw_name.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr(entry.pw_name).to_string_lossy();
        let name = name.trim();
        (!name.is_empty()).then(|| name.to_owned())
    }
}
