//! `flightstate release MESSAGE_ID` and `flightstate reject MESSAGE_ID`: an
//! operator's answer to a snapshot the mass-delete guard holds
//! (docs/operations.md).
//!
//! Like a requeue, the answer is an explicit, recorded action: one state
//! transaction records the decision with who and when on the message's
//! `PROC_STATE` row. The pump, which waits at the held head re-reading that
//! row, acts on it at its next look: a released snapshot is applied as it
//! is (the guard does not stop it again), a rejected one is recorded DEAD
//! and written back, and the queue moves on. Neither command touches the
//! mailbox or the flights itself.

use std::process::ExitCode;

use flightstate::config::Config;
use flightstate::store::{DeadOps, ProcStatus, REJECTED, RELEASED, Store};

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// The held message's id (`CMINMSGS_ID`).
    id: i64,
    /// Who decides (recorded); default: the operating-system user (`$USER`).
    #[arg(long)]
    by: Option<String>,
}

/// What the operator answers.
#[derive(Clone, Copy, Debug)]
pub enum Decision {
    /// Apply the snapshot as it is.
    Release,
    /// Never apply it: DEAD.
    Reject,
}

impl Decision {
    fn code(self) -> &'static str {
        match self {
            Decision::Release => RELEASED,
            Decision::Reject => REJECTED,
        }
    }

    fn effect(self) -> &'static str {
        match self {
            Decision::Release => "the pump applies it as it is at its next look at the head",
            Decision::Reject => {
                "the pump records it DEAD at its next look at the head, and the queue moves on"
            }
        }
    }
}

pub fn run(opts: Opts, config: &Config, decision: Decision) -> anyhow::Result<ExitCode> {
    super::open_store::with_store(config, 1, Decide { opts, decision })
}

struct Decide {
    opts: Opts,
    decision: Decision,
}

impl super::open_store::StoreWork for Decide {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let Decide { opts, decision } = self;
        let by = super::dead::operator(opts.by)?;
        let now = flightstate::station::utc_now();
        let id = opts.id;
        let (decided, record) = store.transaction(|tx| {
            let decided = tx.decide_held_message(id, decision.code(), &by, now)?;
            Ok::<_, anyhow::Error>((decided, tx.select_message_record(id)?))
        })?;
        if decided {
            tracing::info!(
                msg.id = id,
                decision = decision.code(),
                decided_by = %by,
                "held snapshot decided"
            );
            println!("{id}: {} by {by}; {}", decision.code(), decision.effect());
            return Ok(ExitCode::SUCCESS);
        }
        match record {
            Some(r) if r.status == ProcStatus::Held => println!(
                "{id}: not changed: an operator already decided it ({}); the pump acts on it at its next look",
                r.error_kind.as_deref().unwrap_or("-")
            ),
            Some(r) => println!(
                "{id}: not changed: it is {} ({}), not held",
                r.status.code(),
                r.error_kind.as_deref().unwrap_or("-")
            ),
            None => println!("{id}: not changed: no such message in PROC_STATE"),
        }
        Ok(ExitCode::from(1))
    }
}
