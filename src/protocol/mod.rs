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
mod tail;
mod values;
mod write;
mod xml_text;

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

/// Site settings that change how a message is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Largest message accepted, in bytes; a bigger one is refused before parsing.
    pub max_bytes: usize,
    /// Name of the optional element directly inside `<SCHD>` by which some sites name the
    /// snapshot's operation day (`ddMMMyy`); `None` where the site sends none.
    pub operation_day_element: Option<String>,
    /// Messages of at least this many bytes are read on two cores: a second thread reads
    /// the last third of a schedule's FLTRs while this one reads up to them. `None` reads
    /// every message on one core. Both read alike, to the error and its path.
    pub second_reader_from_bytes: Option<usize>,
}

/// The default of [`ParseOptions::second_reader_from_bytes`]: from a few hundred flights,
/// where a second thread costs far less than the reading it takes over.
pub const DEFAULT_SECOND_READER_FROM_BYTES: usize = 1024 * 1024;

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_bytes: DEFAULT_MAX_BYTES,
            operation_day_element: None,
            second_reader_from_bytes: Some(DEFAULT_SECOND_READER_FROM_BYTES),
        }
    }
}

/// Parses one message held in memory (a mailbox CLOB, a file's bytes) on the calling
/// thread; a message of [`ParseOptions::second_reader_from_bytes`] or more has the FLTRs of
/// the last third of its body read on a second, scoped thread, joined before this returns
/// (`docs/protocol.md`, "Reading on two cores").
///
/// # Errors
///
/// [`ProtocolError`] says why the message is refused; every case but
/// [`ProtocolError::Io`] is bad input, never worth a retry.
pub fn parse_slice(input: &[u8], opts: &ParseOptions) -> Result<Message, ProtocolError> {
    parse_with(input, opts, message::EarlyRecords::default())
}

/// Like [`parse_slice`], and hands `to` the record of each FLTR of a snapshot (an SCHD
/// DNLD or RESP whose META comes first, as SIS writes it) as soon as it is read: in
/// input order, up to the first record that fails, while the rest of the message is still
/// being read.
///
/// What `to` was handed is provisional: only the returned message says whether the whole
/// document is well-formed and valid. The records handed on are not in the message (its
/// `flights` is empty then), so that a day is never held whole.
///
/// # Errors
///
/// As [`parse_slice`].
pub fn parse_slice_handing(
    input: &[u8],
    opts: &ParseOptions,
    to: &mut dyn FnMut(FlightRecord),
) -> Result<Message, ProtocolError> {
    parse_with(input, opts, message::EarlyRecords::handed(to))
}

fn parse_with(
    input: &[u8],
    opts: &ParseOptions,
    mut early: message::EarlyRecords<'_>,
) -> Result<Message, ProtocolError> {
    if input.len() > opts.max_bytes {
        return Err(ProtocolError::TooLarge {
            size: input.len(),
            limit: opts.max_bytes,
        });
    }
    let document = reader::Document::decode(input)?;
    let root = match opts.second_reader_from_bytes {
        Some(from) if input.len() >= from => tail::read_on_two_cores(&document, &mut early)?,
        _ => document.read_with(|ancestors, element| early.closed(ancestors, element))?,
    };
    message::parse_message(&root, opts, early)
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
