//! Applying a large snapshot while it is still being read: the steps of
//! `snapshot`, in one transaction, with the flights written part by part
//! as the reader hands them out. Reading the message (this process) and
//! writing the day (the database) then overlap on the machine's cores
//! instead of taking turns.
//!
//! The day is provisional until the message is read whole: it is the day of
//! the first part's first scheduled time. The checks `snapshot` makes before
//! its transaction (RECS, the day, every record, no FLID twice) come at the
//! end here and decide whether the transaction commits. When they do not
//! hold — or the day's ledger says the message is a replay, or the version
//! race is lost — the transaction rolls back and the message takes the path
//! of every other message, which decides and reports what it always does:
//! this path changes how soon a valid snapshot is applied, never what any
//! message does.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use chrono::{NaiveDate, NaiveDateTime};

use super::PipelineError;
use super::message_ref::MessageRef;
use super::report::SnapshotReport;
use super::settings::Settings;
use super::snapshot::{
    Begun, Built, Written, begin, check_schedule, finish, snapshot_list, write_flights,
};
use crate::FailureKind;
use crate::protocol::{self, Body, Message, ProtocolError};
use crate::state::{self, FlightState, day_of};
use crate::store::{Store, StoreError};

/// What the reader hands the writer.
enum Read {
    /// The next flights' states and digests, in input order.
    Part(Built),
    /// The message is read: the snapshot's day and envelope when it is a
    /// snapshot that passes every check and whose flights were all handed
    /// out; `None` otherwise.
    End(Option<Checked>),
}

/// What the whole message says, once read.
struct Checked {
    day: NaiveDate,
    day_source: state::DaySource,
    msg_type: String,
    subtype: String,
    sender: String,
}

/// The message as read, and what the streamed path made of it.
pub(super) struct Streamed {
    /// The message, read whole.
    pub(super) parsed: Result<Message, ProtocolError>,
    /// The snapshot's outcome; `None` when the message is to be applied
    /// the usual way (it is no valid snapshot, or the streamed transaction
    /// was rolled back for a reason the usual way decides).
    pub(super) outcome: Option<Result<SnapshotReport, PipelineError>>,
}

/// Reads `body` and, when it is a snapshot, writes its flights as they are
/// read: the reader (this message's XML into each record's state and
/// `STATE_DIGEST`, on two cores for a large message) hands whole parts to
/// the writer (the calling thread, in the transaction). A day recognised
/// unchanged takes about the reader's time.
pub(super) fn apply_streamed<S: Store>(
    store: &S,
    settings: &Settings,
    message: (i64, &str, NaiveDateTime),
    body: &[u8],
) -> Streamed {
    let (to_writer, parts) = sync_channel(2);
    std::thread::scope(|scope| {
        let reader = std::thread::Builder::new()
            .name("snapshot-reader".to_owned())
            .spawn_scoped(scope, || {
                crate::cores::work_behind_the_writer();
                read(body, settings, to_writer)
            });
        let Ok(reader) = reader else {
            // No thread to read on: read here, the usual way.
            return Streamed {
                parsed: protocol::parse_slice(body, &settings.parse),
                outcome: None,
            };
        };
        let outcome = write(store, settings, message, parts);
        let parsed = match reader.join() {
            Ok(parsed) => parsed,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        Streamed { parsed, outcome }
    })
}

/// The reader: parses `body`, building each snapshot record's state and
/// digest on the thread that read it (`protocol::parse_slice_mapped`), and
/// hands them out by parts as soon as they are built; ends with what the
/// whole message says. A record whose state cannot be built ends the parts
/// and makes the end `None` (the usual path reports it). Stops handing out
/// when the writer stops listening.
fn read(
    body: &[u8],
    settings: &Settings,
    parts: SyncSender<Read>,
) -> Result<Message, ProtocolError> {
    let mut part = Vec::new();
    // The first part is an eighth of the others, so that the writer starts
    // on the day after a fortieth of its reading rather than a fifth; each
    // next part is twice the last, up to the full size, so that the writer
    // has the next part in hand when it is done with one.
    let mut part_size = (settings.stream_part_flights / 8).max(1);
    let mut handed_out = 0;
    // Whether every record read so far went out: a record that could not be
    // built, or a writer that stopped listening, ends the parts.
    let mut flowing = true;
    let send = |part: Vec<(FlightState, String)>, handed_out: &mut usize| {
        *handed_out += part.len();
        parts.send(Read::Part(Built::from_pairs(part))).is_ok()
    };
    let mut on_built = |built: Result<(FlightState, String), state::RecordError>| {
        if !flowing {
            return;
        }
        let Ok(built) = built else {
            flowing = false;
            return;
        };
        part.push(built);
        if part.len() >= part_size {
            part_size = (part_size * 2).min(settings.stream_part_flights);
            flowing = send(std::mem::take(&mut part), &mut handed_out);
        }
    };
    let parsed = protocol::parse_slice_mapped(body, &settings.parse, &Built::one, &mut on_built);
    if flowing && !part.is_empty() {
        flowing = send(part, &mut handed_out);
    }
    let checked = match &parsed {
        Ok(Message {
            meta,
            body: Body::Schedule(schedule),
            ..
        }) if flowing && handed_out == schedule.flights.len() && schedule.subtype.is_snapshot() => {
            check_schedule(schedule, settings, None)
                .ok()
                .map(|(day, day_source)| Checked {
                    day,
                    day_source,
                    msg_type: meta.msg_type.clone(),
                    subtype: meta.styp.clone(),
                    sender: meta.sndr.clone(),
                })
        }
        _ => None,
    };
    // A writer that stopped listening has no use for the end.
    drop(parts.send(Read::End(checked)));
    parsed
}

/// Why the streamed transaction did not commit.
enum Stopped {
    /// The usual path is to decide (why, for the log): not a valid
    /// snapshot of the provisional day, a replay, a lost version race.
    Abandoned(&'static str),
    /// A failure of its own (the database, the pump's fence, an injected
    /// fault).
    Failed(PipelineError),
}

impl From<PipelineError> for Stopped {
    fn from(e: PipelineError) -> Self {
        match e.kind() {
            FailureKind::BadInput => Stopped::Abandoned("a flight is bad input"),
            FailureKind::Conflict => Stopped::Abandoned("a lost version race"),
            _ => Stopped::Failed(e),
        }
    }
}

impl From<StoreError> for Stopped {
    fn from(e: StoreError) -> Self {
        Stopped::from(PipelineError::from(e))
    }
}

#[cfg(feature = "failpoints")]
impl From<crate::failpoint::Injected> for Stopped {
    fn from(e: crate::failpoint::Injected) -> Self {
        Stopped::from(PipelineError::from(e))
    }
}

/// The writer: one transaction that begins with the first part and commits
/// once the reader's end says the snapshot is valid and of that day.
fn write<S: Store>(
    store: &S,
    settings: &Settings,
    (message_id, identity_key, now): (i64, &str, NaiveDateTime),
    parts: Receiver<Read>,
) -> Option<Result<SnapshotReport, PipelineError>> {
    let Ok(Read::Part(first)) = parts.recv() else {
        return None;
    };
    let day = first
        .states
        .iter()
        .find_map(|s| s.fields.sodt)
        .map(|sodt| day_of(sodt, settings.day_boundary))?;
    // Whether the reader's end said the snapshot is valid and of `day`.
    let mut valid = false;
    let result = store.transaction(|tx| {
        let ledger = match begin(tx, settings, message_id, day)? {
            Begun::Replay(_) => return Err(Stopped::Abandoned("it is the day's latest snapshot")),
            Begun::Fresh(ledger) => ledger,
        };
        let mut written = Written::default();
        let mut flids = Vec::new();
        let mut part = first;
        let mut parts_written = 0;
        let checked = loop {
            parts_written += 1;
            flids.extend(part.states.iter().map(|s| s.flid));
            write_flights(tx, day, message_id, now, &part, &mut written)?;
            crate::failpoint!("snapshot.after_part");
            let flights = part.len();
            crate::cores::free(part, flights);
            match parts.recv() {
                Ok(Read::Part(next)) => part = next,
                Ok(Read::End(Some(checked))) if checked.day == day => break checked,
                Ok(Read::End(Some(_))) => {
                    return Err(Stopped::Abandoned("its day is not its first flight's"));
                }
                Ok(Read::End(None)) | Err(_) => {
                    return Err(Stopped::Abandoned("it is no valid snapshot"));
                }
            }
        };
        // A RESP that names no day is of the day of the request it answers
        // (the reader could not ask): another day is the usual path's.
        let mut checked = checked;
        if checked.day_source != state::DaySource::Explicit
            && crate::request::takes_request_day(&checked.msg_type, &checked.subtype)
            && let Some(asked) = crate::request::request_day(tx, &checked.sender)?
        {
            if asked != day {
                return Err(Stopped::Abandoned("it answers a request for another day"));
            }
            checked.day_source = state::DaySource::Request;
        }
        valid = true;
        let list = snapshot_list(flids)?;
        crate::failpoint!("apply.after_parse");
        let message = MessageRef {
            id: message_id,
            identity_key,
            msg_type: &checked.msg_type,
            subtype: &checked.subtype,
            sender: &checked.sender,
            now,
        };
        let report = finish(
            tx,
            &message,
            (day, checked.day_source),
            &list,
            ledger,
            written,
        )?;
        Ok(SnapshotReport {
            streamed_parts: parts_written,
            ..report
        })
    });
    match result {
        Ok(report) => Some(Ok(report)),
        Err(Stopped::Abandoned(why)) => {
            tracing::info!(
                msg.id = message_id,
                why,
                "streamed snapshot rolled back; applying it read whole"
            );
            None
        }
        // A failure counts only for a message the usual path would have
        // applied on this day: for any other, that path decides.
        Err(Stopped::Failed(e)) if valid => Some(Err(e)),
        Err(Stopped::Failed(e)) => loop {
            match parts.recv() {
                Ok(Read::Part(_)) => {}
                Ok(Read::End(Some(checked))) if checked.day == day => break Some(Err(e)),
                Ok(Read::End(_)) | Err(_) => break None,
            }
        },
    }
}
