//! Applying a snapshot (SCHD DNLD / RESP) of one operation day: the seed's
//! nine steps (DESIGN §4), in one transaction that applies the whole day or
//! nothing — [`snapshot_transaction`] shows them in order.
//!
//! One transaction, whichever way the message is read: read whole before
//! the transaction, its flights are one part; streamed (`streamed`), they
//! are written part by part while the rest is still being read. Either way
//! the same rules decide:
//!
//! - **validation** (RECS, the day, every value, no FLID twice): a message
//!   that fails it is DEAD with the same reason, and nothing it wrote
//!   commits;
//! - **replay**: the day's latest snapshot again records SUCCEEDED and
//!   changes nothing else;
//! - **the version race**: a lost CAS rolls back and the transaction runs
//!   again from the start, reading the flights afresh, at most
//!   [`CONFLICT_RETRIES`] times.
//!
//! An operator's replay (`replay`) runs the same transaction between its
//! own first and last steps.

mod check;
mod replay;
mod streamed;
mod write;

pub use check::MAX_SNAPSHOT_FLIGHTS;
pub(super) use check::WholeSnapshot;
pub use replay::{ReplayError, ReplayPlan, replay_snapshot};
pub(super) use streamed::{Streamed, apply_streamed};

use std::borrow::Cow;

use chrono::{NaiveDate, NaiveDateTime};

use super::PipelineError;
use super::attempt::Attempt;
use super::error::MetaUnread;
use super::evidence::order;
use super::outcome::SnapshotReport;
use super::rules::Rules;
use crate::FailureKind;
use crate::failure::Causes;
use crate::request;
use crate::state::{DayMoves, DaySource};
use crate::store::{
    DeadOps, JournalOps, ProcStatus, RequestOps, SnapshotLedger, StateTx, Store, StoreError,
};
use check::{CheckedSnapshot, NewStates};
use write::{
    WriteOutcome, bump_version, delete_absent, guard_mass_delete, register, replace_list,
    write_part,
};

/// How often a snapshot that lost the version race is run again at once:
/// a race is another writer of the same day, which a pump under its lease
/// meets only from an operator's tool, so a few tries settle it.
const CONFLICT_RETRIES: u32 = 5;

/// A reading of a snapshot's flights, part by part, then of what the whole
/// message says.
pub(super) trait Parts {
    /// The next part of the flights, in input order; `None` once all were
    /// handed out, or once reading stopped at a flight that cannot be
    /// applied (the end says why).
    fn next_part(&mut self) -> Option<Cow<'_, NewStates>>;

    /// Reads the rest of the message (the parts not taken are dropped) and
    /// checks it whole; the attempt knows the message's META once this
    /// succeeded.
    ///
    /// # Errors
    ///
    /// [`PipelineError::BadInput`]: why the message is no valid snapshot.
    fn end(&mut self) -> Result<CheckedSnapshot, PipelineError>;
}

/// A snapshot's flights, to be read once per attempt at its transaction.
pub(super) trait Source {
    /// Reads the flights afresh and runs `run` over the reading, with the
    /// day of its first flight when that is known before the message is
    /// read whole.
    fn read<R>(&self, run: impl FnOnce(Option<NaiveDate>, &mut dyn Parts) -> R) -> R;
}

/// Why a run of the transaction did not commit.
enum Stop {
    /// The whole message says another day than the one the transaction
    /// began for (a streamed message's first flight), or the first part told
    /// none: read it again for that day.
    OtherDay(NaiveDate),
    Failed(PipelineError),
    /// An operator's replay was refused, or was a dry run: rolled back.
    Replay(replay::ReplayEnd),
}

impl Stop {
    /// The failure a stop is for the pipeline's own callers, who run no
    /// replay.
    fn into_error(self) -> PipelineError {
        match self {
            Stop::Failed(e) => e,
            Stop::OtherDay(day) => PipelineError::BadInput(format!(
                "the snapshot's day is not {day} on a second reading"
            )),
            Stop::Replay(ended) => PipelineError::BadInput(ended.to_string()),
        }
    }
}

impl From<PipelineError> for Stop {
    fn from(e: PipelineError) -> Self {
        Stop::Failed(e)
    }
}

impl From<MetaUnread> for Stop {
    fn from(e: MetaUnread) -> Self {
        Stop::Failed(e.into())
    }
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Self {
        Stop::Failed(e.into())
    }
}

#[cfg(feature = "failpoints")]
impl From<crate::failpoint::Injected> for Stop {
    fn from(e: crate::failpoint::Injected) -> Self {
        Stop::Failed(e.into())
    }
}

/// Applies the snapshot `source` reads: [`snapshot_transaction`], run
/// again as [`run_snapshot`] says.
///
/// # Errors
///
/// [`PipelineError::BadInput`] for a message that is no valid snapshot;
/// any failure of the transaction that retrying did not cure.
pub(super) fn apply_snapshot<S: Store>(
    store: &S,
    rules: &Rules,
    attempt: &Attempt<'_>,
    source: &impl Source,
) -> Result<SnapshotReport, PipelineError> {
    run_snapshot(store, attempt.message_id, source, |tx, day, parts| {
        snapshot_transaction(tx, rules, attempt, day, parts)
    })
    .map_err(Stop::into_error)
}

/// Runs `transaction` over what `source` reads, for the day it tells, in
/// one database transaction — again when it loses the version race (up to
/// [`CONFLICT_RETRIES`] times) or when the message turns out to be of
/// another day than its first flight.
///
/// # Errors
///
/// The [`Stop`] that retrying did not cure, never [`Stop::OtherDay`].
fn run_snapshot<S: Store, R>(
    store: &S,
    message_id: i64,
    source: &impl Source,
    transaction: impl Fn(&mut S::Tx<'_>, NaiveDate, &mut dyn Parts) -> Result<R, Stop>,
) -> Result<R, Stop> {
    let mut known_day = None;
    let mut retries = 0;
    loop {
        let result = source.read(|first_day, parts| {
            let Some(day) = known_day.or(first_day) else {
                // No flight read yet tells the day: the whole message does.
                return Err(Stop::OtherDay(parts.end()?.day));
            };
            store.transaction(|tx| transaction(tx, day, parts))
        });
        match result {
            Ok(report) => return Ok(report),
            Err(Stop::OtherDay(day)) if known_day != Some(day) => {
                tracing::info!(
                    msg.id = message_id,
                    %day,
                    "the snapshot is of another day than its first flight; writing it again for its day"
                );
                known_day = Some(day);
            }
            // A second reading of the same bytes said another day again:
            // no reading can be trusted to say which.
            Err(stop @ Stop::OtherDay(_)) => return Err(Stop::Failed(stop.into_error())),
            Err(Stop::Failed(e)) if lost_race(&e) && retries < CONFLICT_RETRIES => {
                retries += 1;
                tracing::warn!(
                    msg.id = message_id,
                    attempt = retries,
                    error = %Causes(&e),
                    "snapshot lost the version race; re-reading and retrying"
                );
            }
            Err(stop) => return Err(stop),
        }
    }
}

/// Whether `e` says another writer moved the day (or a row) first: worth
/// running the transaction again at once. (A fenced pump's error is of its
/// own kind, never retried: its lease is gone.)
fn lost_race(e: &PipelineError) -> bool {
    e.kind() == FailureKind::Conflict
}

/// The seed's nine steps for day `day`, in one transaction. It is long on
/// purpose: the steps read here in their order, each one call, so that what
/// the transaction commits is read in one place.
///
/// Step 3's checks need the whole message: one read whole passed them
/// before its transaction began; one streamed passes or fails them when its
/// last part has been read, after its flights were written. Either way they
/// decide before anything else does: a message that fails them is bad input
/// whatever the writes did, and nothing it wrote commits.
fn snapshot_transaction<T: StateTx + RequestOps + JournalOps + DeadOps>(
    tx: &mut T,
    rules: &Rules,
    attempt: &Attempt<'_>,
    day: NaiveDate,
    parts: &mut dyn Parts,
) -> Result<SnapshotReport, Stop> {
    // 0. A day the history rule retired is not brought back.
    refuse_retired_day(rules, day, attempt.now)?;
    // 1. Take PIPELINE_LOCK (checking the pump's epoch under it) and read
    //    the day's ledger.
    attempt.lock(tx)?;
    let ledger = tx.snapshot_ledger(day)?;
    // 2. The day's latest snapshot again is a replay: nothing is written.
    //    (An operator's replay is applied: `replay`.)
    let operator_replay = attempt.is_operator_replay();
    let replay = !operator_replay && is_replay(ledger.as_ref(), attempt.message_id);
    // 4. Write every flight of N with the day, as its part is read.
    let day_moves = replay::day_moves(attempt, rules.day_moves);
    let written = if replay {
        Ok(WriteOutcome::default())
    } else {
        write_parts(tx, (day, day_moves), attempt, parts)
    };
    // 3. RECS, the day, every value, no FLID twice; a RESP that names no
    //    day is of the day of the request it answers.
    let checked = answered_day(tx, attempt, parts.end()?)?;
    if checked.day != day {
        return Err(Stop::OtherDay(checked.day));
    }
    let mut written = written?;
    if let (true, Some(ledger)) = (replay, &ledger) {
        tx.record_outcome(&attempt.succeeded())?;
        attempt.seal(tx, ProcStatus::Succeeded, false)?;
        return Ok(replay_report(&checked, ledger));
    }
    // 5, 6. Delete O − N where the flight is still of the day.
    let ids = (attempt.message_id, attempt.now);
    let deleted = delete_absent(tx, day, &checked.list, ids, &mut written)?;
    //    Deleting too much of the day holds the message for an operator,
    //    and rolls back everything it wrote.
    guard_mass_delete(
        tx,
        rules.delete_guard,
        attempt.released(),
        day,
        deleted.len(),
    )?;
    crate::failpoint!("snapshot.after_deletes");
    // 7. Replace the day's list with N.
    replace_list(tx, day, &checked.list)?;
    crate::failpoint!("snapshot.before_bump");
    // 8. CAS-bump the day's version, recording the message.
    let version = bump_version(tx, day, ledger.as_ref(), attempt)?;
    //    Its DTTM and SEQN are counted as evidence of the upstream's
    //    order, and the answer completes the request it answers, if any.
    //    An operator's replay is neither: it is not the upstream speaking.
    if !operator_replay {
        order::count_snapshot(tx, day, attempt)?;
        let answer = attempt.read_meta()?;
        request::complete_by_answer(tx, answer, day, (attempt.message_id, attempt.now))?;
    }
    // 9. Register the events and the outcome.
    let report = SnapshotReport {
        operation_day: day,
        day_source: checked.day_source,
        version,
        replay: false,
        flights: checked.list.len(),
        created: written.created,
        updated: written.updated,
        unchanged: written.unchanged,
        deleted,
        kept_on_later_day: std::mem::take(&mut written.kept_on_later_day),
        streamed_parts: checked.streamed_parts,
    };
    register(tx, attempt, written, &report)?;
    crate::failpoint!("snapshot.before_commit");
    attempt.seal(tx, ProcStatus::Succeeded, false)?;
    Ok(report)
}

/// Refuses a snapshot of a day that `cleanup.history_days` retires at
/// `now`: its flights are (or are about to be) gone with tombstones on the
/// state topic, and applying it would bring them back as new flights.
fn refuse_retired_day(rules: &Rules, day: NaiveDate, now: NaiveDateTime) -> Result<(), Stop> {
    match rules.history {
        Some(history) if history.retires(day, now) => {
            Err(Stop::Failed(PipelineError::BadInput(format!(
                "operation day {day} is retired: cleanup.history_days = {} keeps {} on; a snapshot of it would bring back flights the state topic was told are gone",
                history.days,
                history.first_kept_day(now)
            ))))
        }
        _ => Ok(()),
    }
}

/// Step 3, for a RESP that names no day: the day of the live request it
/// answers, when there is one, over the day its flights' times tell.
fn answered_day<T: RequestOps>(
    tx: &mut T,
    attempt: &Attempt<'_>,
    mut checked: CheckedSnapshot,
) -> Result<CheckedSnapshot, PipelineError> {
    let meta = attempt.read_meta()?;
    if checked.day_source == DaySource::Explicit
        || !request::takes_request_day(&meta.msg_type, &meta.styp)
    {
        return Ok(checked);
    }
    if let Some(asked) = request::request_day(tx, &meta.sndr)? {
        checked.day = asked;
        checked.day_source = DaySource::Request;
    }
    Ok(checked)
}

/// Step 2: whether the message is the day's latest snapshot again.
fn is_replay(ledger: Option<&SnapshotLedger>, message_id: i64) -> bool {
    ledger.is_some_and(|l| l.last_message_id == message_id)
}

/// Step 4 over every part; the parts after a failure are left to
/// [`Parts::end`].
fn write_parts<T: StateTx>(
    tx: &mut T,
    day: (NaiveDate, DayMoves),
    attempt: &Attempt<'_>,
    parts: &mut dyn Parts,
) -> Result<WriteOutcome, PipelineError> {
    let mut written = WriteOutcome::default();
    let ids = (attempt.message_id, attempt.now);
    while let Some(part) = parts.next_part() {
        write_part(tx, day, ids, part, &mut written)?;
        crate::failpoint!("snapshot.after_part");
    }
    Ok(written)
}

/// What a replay reports: the day's version as it stands, every flight
/// unchanged.
fn replay_report(checked: &CheckedSnapshot, ledger: &SnapshotLedger) -> SnapshotReport {
    let flights = checked.list.len();
    SnapshotReport {
        operation_day: checked.day,
        day_source: checked.day_source,
        version: ledger.version,
        replay: true,
        flights,
        created: 0,
        updated: 0,
        unchanged: flights,
        deleted: Vec::new(),
        kept_on_later_day: Vec::new(),
        streamed_parts: checked.streamed_parts,
    }
}

/// A snapshot read whole: its flights are one part, checked before any
/// transaction (its META is the attempt's, read with it).
impl Source for WholeSnapshot {
    fn read<R>(&self, run: impl FnOnce(Option<NaiveDate>, &mut dyn Parts) -> R) -> R {
        let mut parts = WholeParts {
            whole: self,
            handed_out: false,
        };
        run(Some(self.day), &mut parts)
    }
}

struct WholeParts<'s> {
    whole: &'s WholeSnapshot,
    handed_out: bool,
}

impl Parts for WholeParts<'_> {
    fn next_part(&mut self) -> Option<Cow<'_, NewStates>> {
        if std::mem::replace(&mut self.handed_out, true) {
            return None;
        }
        Some(Cow::Borrowed(&self.whole.flights))
    }

    fn end(&mut self) -> Result<CheckedSnapshot, PipelineError> {
        let whole = self.whole;
        Ok(CheckedSnapshot {
            day: whole.day,
            day_source: whole.day_source,
            list: whole.list.clone(),
            streamed_parts: 0,
        })
    }
}
