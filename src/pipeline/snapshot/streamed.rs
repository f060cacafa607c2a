//! Reading a large snapshot while it is being written: a reader thread
//! parses the message and hands its records by parts, as their FLTRs are
//! read, to the snapshot's transaction ([`Parts`]), which builds each
//! part's states and `STATE_DIGEST`s and writes them while the reader reads
//! on. Parsing then overlaps with building and writing (the other core and
//! the database) instead of taking turns; the parser reads a large day's last
//! third on the second core too (`protocol::ParseOptions::second_reader_from_bytes`).
//!
//! Only a few parts are held at a time: the reader keeps no record it
//! handed on, the transaction drops each part once written, and what the
//! checks need of the whole message is a tally (`check::SnapshotTally`:
//! the FLIDs and scheduled times). So a day's memory is its XML and a few
//! parts, not the day. Each attempt at the transaction reads the message
//! again (a lost version race is rare; keeping the day to spare it would
//! cost the memory this saves).

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use chrono::NaiveDate;

use super::check::{CheckedSnapshot, NewState, NewStates, SnapshotTally};
use super::{Parts, SnapshotReport, Source, apply_snapshot};
use crate::pipeline::attempt::Attempt;
use crate::pipeline::{PipelineError, Rules};
use crate::protocol::{self, Body, FlightRecord, Message, ProtocolError};
use crate::store::Store;

/// What became of a message read by parts.
pub(in crate::pipeline) enum Streamed {
    /// A snapshot, whose flights were handed out as read: its outcome (the
    /// attempt knows its META once the message could be read).
    Snapshot(Result<SnapshotReport, PipelineError>),
    /// No flight was handed out (not a snapshot, or one without FLTR):
    /// the message as read, whole, for the usual path.
    Other(Result<Message, ProtocolError>),
}

/// Applies the message of `attempt` as a snapshot read by parts, when it
/// is one.
pub(in crate::pipeline) fn apply_streamed<S: Store>(
    store: &S,
    rules: &Rules,
    attempt: &Attempt<'_>,
) -> Streamed {
    let source = StreamSource {
        attempt,
        rules,
        other: RefCell::new(None),
    };
    let outcome = apply_snapshot(store, rules, attempt, &source);
    match source.other.into_inner() {
        Some(parsed) => Streamed::Other(parsed),
        None => Streamed::Snapshot(outcome),
    }
}

/// What the reader hands the transaction.
enum Read {
    /// The next flights' records, in input order.
    Part(Vec<FlightRecord>),
    /// The message is read; a snapshot's `flights` holds none of those
    /// handed out.
    End(Box<Result<Message, ProtocolError>>),
}

/// A message to read by parts, once per attempt.
struct StreamSource<'a> {
    /// The attempt at the message: its bytes, and where its META is kept
    /// once read.
    attempt: &'a Attempt<'a>,
    rules: &'a Rules,
    /// The message read whole, when it handed out no flight.
    other: RefCell<Option<Result<Message, ProtocolError>>>,
}

impl Source for StreamSource<'_> {
    fn read<R>(&self, run: impl FnOnce(Option<NaiveDate>, &mut dyn Parts) -> R) -> R {
        // One part queued: the reader keeps one part ahead of the writer
        // while the writer writes another; a second would only hold more
        // memory (`docs/benchmarks.md`).
        let (to_writer, from_reader) = sync_channel(1);
        let (body, rules) = (self.attempt.body, self.rules);
        std::thread::scope(|scope| {
            let reader = std::thread::Builder::new()
                .name("snapshot-reader".to_owned())
                .spawn_scoped(scope, move || read(body, rules, to_writer));
            let mut parts = StreamParts {
                source: self,
                from_reader,
                tally: SnapshotTally::default(),
                handed: 0,
                first: None,
                verdict: None,
                ended: false,
            };
            let Ok(reader) = reader else {
                // No thread to read on: the usual path reads it whole.
                self.other
                    .replace(Some(protocol::parse_slice(body, &self.rules.parse)));
                return run(None, &mut parts);
            };
            parts.first = parts.receive();
            let first_day = parts.first.as_ref().and_then(|p| p.first_day(self.rules));
            let result = run(first_day, &mut parts);
            // Whatever the transaction left unread is not wanted.
            drop(parts);
            if let Err(panic) = reader.join() {
                std::panic::resume_unwind(panic);
            }
            result
        })
    }
}

/// One reading of a message by parts.
struct StreamParts<'s, 'a> {
    source: &'s StreamSource<'a>,
    from_reader: Receiver<Read>,
    /// The FLIDs and scheduled times of every record received, and the
    /// first whose state could not be built.
    tally: SnapshotTally,
    /// How many parts were handed to the transaction.
    handed: usize,
    /// The first part, taken to learn the day before the transaction.
    first: Option<NewStates>,
    /// What the checks said of the whole message, once it was read.
    verdict: Option<Result<CheckedSnapshot, String>>,
    /// Whether [`Parts::end`] was asked before.
    ended: bool,
}

impl StreamParts<'_, '_> {
    /// The next part, built; at the end, the verdict on the whole message.
    /// After a record whose state cannot be built, no part is handed out
    /// (the verdict says why), but every record is still tallied.
    fn receive(&mut self) -> Option<NewStates> {
        while self.verdict.is_none() {
            match self.from_reader.recv() {
                Ok(Read::Part(records)) => {
                    if let Some(built) = self.build(&records) {
                        return Some(built);
                    }
                }
                Ok(Read::End(parsed)) => self.verdict = Some(self.judge(*parsed)),
                // The reader is gone without an end: it panicked (its join
                // says how), or never started.
                Err(_) => self.verdict = Some(Err("the message could not be read".to_owned())),
            }
        }
        None
    }

    /// The states and digests of `records`, tallied; `None` once a record
    /// of the message had no state.
    fn build(&mut self, records: &[FlightRecord]) -> Option<NewStates> {
        let mut states = Vec::with_capacity(records.len());
        for record in records {
            let built = NewState::of(record);
            self.tally
                .add(record.flid, record.sodt.value().copied(), &built);
            if let Ok(state) = built {
                states.push(state);
            }
        }
        if !self.tally.all_built() {
            return None;
        }
        self.handed += 1;
        Some(NewStates(states))
    }

    /// The same checks as for a message read whole, on the tally.
    fn judge(&mut self, parsed: Result<Message, ProtocolError>) -> Result<CheckedSnapshot, String> {
        let tally = std::mem::take(&mut self.tally);
        let message = match parsed {
            Ok(message) if tally.count() > 0 => message,
            // Nothing was handed out: the message is whole, and the usual
            // path decides what it is.
            parsed => {
                self.source.other.replace(Some(parsed));
                return Err("no flight was read by parts".to_owned());
            }
        };
        let Message { meta, body, .. } = message;
        self.source.attempt.read(meta);
        let Body::Schedule(schedule) = &body else {
            return Err("the message is no snapshot".to_owned());
        };
        let (day, day_source, list) = tally
            .check(
                &schedule.recs,
                (schedule.operation_day, None),
                self.source.rules,
            )
            .map_err(|e| e.to_string())?;
        Ok(CheckedSnapshot {
            day,
            day_source,
            list,
            streamed_parts: self.handed,
        })
    }
}

impl Parts for StreamParts<'_, '_> {
    fn next_part(&mut self) -> Option<Cow<'_, NewStates>> {
        self.first.take().or_else(|| self.receive()).map(Cow::Owned)
    }

    fn end(&mut self) -> Result<CheckedSnapshot, PipelineError> {
        let first = !std::mem::replace(&mut self.ended, true);
        self.first = None;
        while self.receive().is_some() {}
        let checked = match &self.verdict {
            Some(Ok(checked)) => checked.clone(),
            Some(Err(reason)) => return Err(PipelineError::BadInput(reason.clone())),
            None => unreachable!("receiving ends with a verdict"),
        };
        if first {
            // The message is read whole and is a valid snapshot.
            crate::failpoint!("snapshot.after_parse");
        }
        Ok(checked)
    }
}

/// The reader: parses `body` and hands out the records of a
/// snapshot by parts as they are read (`protocol::parse_slice_handing`);
/// ends with the message. It stops handing out when the transaction stops
/// listening.
fn read(body: &[u8], rules: &Rules, parts: SyncSender<Read>) {
    let mut part = Vec::new();
    // The first part is an eighth of the others, so that the writer starts
    // on the day after a fortieth of its reading rather than a fifth; each
    // next part is twice the last, up to the full size, so that the writer
    // has the next part in hand when it is done with one.
    let mut part_size = (rules.stream_part_flights / 8).max(1);
    let mut listening = true;
    let mut on_record = |record: FlightRecord| {
        if !listening {
            return;
        }
        part.push(record);
        if part.len() >= part_size {
            part_size = (part_size * 2).min(rules.stream_part_flights);
            listening = parts.send(Read::Part(std::mem::take(&mut part))).is_ok();
        }
    };
    let parsed = protocol::parse_slice_handing(body, &rules.parse, &mut on_record);
    if listening && !part.is_empty() {
        listening = parts.send(Read::Part(part)).is_ok();
    }
    if listening {
        // A transaction that stopped listening has no use for the end.
        drop(parts.send(Read::End(Box::new(parsed))));
    }
}
