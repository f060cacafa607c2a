//! SIS XML → typed messages: the only place that reads AODB's XML.
//!
//! Owns well-formedness, the protocol's lexical and value rules (strict dates, tri-state
//! fields, closed code sets, mandatory elements) and the typed [`Message`]. It must not touch
//! a database, decide merge semantics, or check one message against another (RECS against
//! the record count, SODTs against an operation day, FLIDs against stored flights): those
//! belong to the state and pipeline layers. It does no I/O beyond reading the input given.
//!
//! Both entry points share one quick-xml configuration and one size limit, checked before
//! parsing. The decisions behind every strictness rule are in `docs/protocol.md`.

mod errors;
mod message;
mod reader;
mod values;
mod write;
mod xml_out;

use std::io::Read;

pub use self::errors::{Position, ProtocolError};
pub use self::message::{
    Body, BridgeEvent, CarouselAllocation, ChockEvent, ChuteAllocation, CounterAllocation, Delay,
    Diversion, FlightOperation, FlightRecord, FlightReturn, FlopSubtype, GateAllocation,
    LandingAbort, Message, Meta, PortEvent, PushEvent, RoutePoint, Schedule, ScheduleSubtype,
    StandAllocation, TractorEvent,
};
pub use self::values::{
    AbortKind, ChockState, DiversionDirection, Field, FlightIndicator, Group, Minutes, Movement,
    NoValue, PortAction, ReturnKind, format_date, format_date_time, format_message_time,
    parse_date, parse_date_time, parse_message_time,
};
pub use self::write::{to_xml, to_xml_with};

/// The default size limit. A snapshot may carry 9,999 flights (RECS has four digits); with
/// realistic collections an FLTR is 1 to 3 KiB, so a full day of a large hub reaches about
/// 30 MB. The limit admits that and no more: anything larger is not a day's schedule.
pub const DEFAULT_MAX_BYTES: usize = 32 * 1024 * 1024;

/// From this size on, a snapshot is read on two cores: below it, starting a thread costs
/// more than it saves. About 40 flights.
pub const DEFAULT_TWO_CORES_FROM_BYTES: usize = 64 * 1024;

/// Site settings that change how a message is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Largest message accepted, in bytes; a bigger one is refused before parsing.
    pub max_bytes: usize,
    /// Name of the optional element directly inside `<SCHD>` by which some sites name the
    /// snapshot's operation day (`ddMMMyy`); `None` where the site sends none.
    pub operation_day_element: Option<String>,
    /// An SCHD message of at least this many bytes is read in two halves at once, split at
    /// an FLTR (see [`parse_slice`]); `usize::MAX` reads every message on one core.
    pub two_cores_from_bytes: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_bytes: DEFAULT_MAX_BYTES,
            operation_day_element: None,
            two_cores_from_bytes: DEFAULT_TWO_CORES_FROM_BYTES,
        }
    }
}

/// Parses one message held in memory (a mailbox CLOB, a file's bytes).
///
/// A large SCHD is read on two cores: a second thread reads the FLTRs from one past the
/// middle on while this one reads up to it, then this one reads on from the end of the
/// second half. Whatever does not fit that shape (the split tag not directly in
/// `MSG/SCHD`, anything but a clean run of records in the second half, any error) is read
/// the way a whole document is, so the result is the same either way.
///
/// # Errors
///
/// [`ProtocolError`] says why the message is refused; every case but
/// [`ProtocolError::Io`] is bad input, never worth a retry.
pub fn parse_slice(input: &[u8], opts: &ParseOptions) -> Result<Message, ProtocolError> {
    parse_with(input, opts, message::EarlyRecords::<()>::default())
}

/// Like [`parse_slice`], and hands `to` what `map` makes of each FLTR of a snapshot (an
/// SCHD DNLD or RESP whose META comes first, as SIS writes it) as soon as it is read: in
/// input order, up to the first record that fails, while the rest of the message is still
/// being read. A record is mapped on the thread that read it, so a large snapshot's are
/// mapped on two cores too; the second half's results reach `to` when the first half's
/// reader gets to them.
///
/// What `to` was handed is provisional: only the returned message says whether the whole
/// document is well-formed and valid. The records handed on are not in the message (its
/// `flights` is empty then), so that a day is never held whole.
///
/// # Errors
///
/// As [`parse_slice`].
pub fn parse_slice_mapped<T: Send>(
    input: &[u8],
    opts: &ParseOptions,
    map: &(dyn Fn(&FlightRecord) -> T + Sync),
    to: &mut dyn FnMut(T),
) -> Result<Message, ProtocolError> {
    parse_with(input, opts, message::EarlyRecords::handed(map, to))
}

fn parse_with<T: Send>(
    input: &[u8],
    opts: &ParseOptions,
    mut early: message::EarlyRecords<'_, T>,
) -> Result<Message, ProtocolError> {
    if input.len() > opts.max_bytes {
        return Err(ProtocolError::TooLarge {
            size: input.len(),
            limit: opts.max_bytes,
        });
    }
    let document = reader::Document::decode(input)?;
    let split = (input.len() >= opts.two_cores_from_bytes)
        .then(|| document.split(message::RECORDS_AT, message::RECORD))
        .flatten();
    let Some(split) = split else {
        let root = document.read_with(|ancestors, element| early.closed(ancestors, element))?;
        return message::parse_message(&root, opts, early);
    };
    let map = early.map();
    // The first half's reader and the second half's hand-over both add to `early`.
    let early = std::cell::RefCell::new(early);
    let halves = std::thread::scope(|scope| {
        let second = scope.spawn(|| {
            let mut late = map.map_or_else(message::EarlyRecords::default, |map| {
                message::EarlyRecords::kept(map)
            });
            let fragment =
                document.read_second_half(&split, |ancestors, e| late.closed(ancestors, e))?;
            late.into_records().map(|records| (fragment, records))
        });
        document.read_halves(
            &split,
            |ancestors, element| early.borrow_mut().closed(ancestors, element),
            || {
                let (fragment, (records, mapped)) = second.join().ok().flatten()?;
                early.borrow_mut().adopt(records, mapped);
                Some(fragment)
            },
        )
    });
    match halves {
        Ok((root, _)) => message::parse_message(&root, opts, early.into_inner()),
        // Said exactly as a reader of the whole says it; a second read costs nothing
        // next to the message being refused.
        Err(_) => {
            let root = document.read_with(|_, _| {})?;
            message::parse_message(&root, opts, message::EarlyRecords::<()>::default())
        }
    }
}

/// Like [`parse_slice`], reading the message from `r` first; never reads more than
/// `max_bytes + 1` bytes, so an endless input costs no more than the limit.
///
/// # Errors
///
/// As [`parse_slice`], plus [`ProtocolError::Io`] when reading fails.
pub fn parse_reader<R: Read>(r: R, opts: &ParseOptions) -> Result<Message, ProtocolError> {
    let cap = opts.max_bytes.saturating_add(1);
    let mut input = Vec::new();
    r.take(cap as u64)
        .read_to_end(&mut input)
        .map_err(ProtocolError::Io)?;
    parse_slice(&input, opts)
}
