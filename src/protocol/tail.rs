//! A large snapshot read on two cores: a second reader reads the last records of the day
//! while the first reads up to them, and the first takes them when it gets there.
//!
//! An unchanged day costs little more than its reading, so reading is what the second core
//! can shorten. The second reader starts at an `<FLTR` found in the last part of the body
//! and reads on as the rest of `MSG/SCHD`'s children (`Document::read_tail`): it holds that
//! part's records, no more. The first reader takes them only where it sees the same thing at
//! the same byte: an event starting there, with exactly the first `MSG/SCHD` open and no
//! FLTR before failed. Anything else (the split inside a comment or CDATA, text or an error
//! in the tail, any content after `</SCHD>`) and the first reader simply reads on, so that
//! every error, and every path in it, is the one-core reading's.

use std::thread::ScopedJoinHandle;

use super::errors::ProtocolError;
use super::message::{EarlyRecords, FlightRecord, RECORD, RECORDS_AT};
use super::reader::{Document, Element, Listener};

/// The second reader takes the last 1/`TAIL_PARTS` of the body: the first reader has the
/// rest, and the records it hands on keep the other core busy too.
const TAIL_PARTS: usize = 3;

/// Reads `document` as `Document::read_with` does, telling `early` of each element, with
/// the records of the day's last part read on a second thread.
///
/// # Errors
///
/// As `Document::read_with`: the same error the one-core reading gives.
pub(crate) fn read_on_two_cores<'a>(
    document: &Document<'a>,
    early: &mut EarlyRecords<'_>,
) -> Result<Element<'a>, ProtocolError> {
    read_telling(document, early).map(|(root, _)| root)
}

/// Like [`read_on_two_cores`], and whether the second reader's records were taken.
fn read_telling<'a>(
    document: &Document<'a>,
    early: &mut EarlyRecords<'_>,
) -> Result<(Element<'a>, bool), ProtocolError> {
    let body = document.body();
    let Some(split) = record_start(body, body.len() - body.len() / TAIL_PARTS) else {
        let root = document.read_with(|ancestors, element| early.closed(ancestors, element))?;
        return Ok((root, false));
    };
    std::thread::scope(|scope| {
        let tail = scope.spawn(move || read_tail(document, split));
        let mut first = FirstReader {
            early,
            tail: Some(tail),
            taken: false,
        };
        let root = document.read_handing_over(split, &mut first)?;
        Ok((root, first.taken))
    })
}

/// The first `<FLTR` tag at or after byte `from`.
fn record_start(body: &str, from: usize) -> Option<usize> {
    let bytes = body.as_bytes();
    let open = format!("<{RECORD}");
    let mut at = from;
    while let Some(found) = memchr::memmem::find(bytes.get(at..)?, open.as_bytes()) {
        let start = at + found;
        let next = bytes.get(start + open.len()).copied();
        if matches!(next, Some(b'>' | b'/' | b' ' | b'\t' | b'\r' | b'\n')) {
            return Some(start);
        }
        at = start + open.len();
    }
    None
}

/// What the second reader read: `MSG/SCHD`'s children from `split` on, each FLTR emptied,
/// and the FLTRs' records; `None` where the tail does not read so.
type Tail<'a> = Option<(Vec<Element<'a>>, Vec<FlightRecord>)>;

fn read_tail<'a>(document: &Document<'a>, split: usize) -> Tail<'a> {
    let mut records = Vec::new();
    let mut to = |record| records.push(record);
    let mut early = EarlyRecords::of_tail(&mut to);
    let children = document.read_tail(split, RECORDS_AT, |ancestors, element| {
        early.closed(ancestors, element);
    })?;
    let all_read = early.all_read();
    drop(early);
    all_read.then_some((children, records))
}

/// The first reader's listener: `early` for each element, and at the split the second
/// reader's tail, when `early` would have read it the same way.
struct FirstReader<'e, 'o, 's, 'a> {
    early: &'e mut EarlyRecords<'o>,
    tail: Option<ScopedJoinHandle<'s, Tail<'a>>>,
    taken: bool,
}

impl<'a> Listener<'a> for &mut FirstReader<'_, '_, '_, 'a> {
    fn closed(&mut self, ancestors: &[Element<'a>], element: &mut Element<'a>) {
        self.early.closed(ancestors, element);
    }

    fn tail(&mut self, open: &[Element<'a>]) -> Option<Vec<Element<'a>>> {
        let tail = self.tail.take()?;
        let (children, records) = match tail.join() {
            Ok(tail) => tail?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        self.taken = self.early.take_tail(open, records);
        self.taken.then_some(children)
    }
}

#[cfg(test)]
mod tests {
    use super::{read_telling, record_start};
    use crate::protocol::message::{EarlyRecords, FlightRecord, Message, parse_message};
    use crate::protocol::reader::Document;
    use crate::protocol::{ParseOptions, ProtocolError};

    /// A snapshot of two FLTRs, written by hand.
    const TURNAROUND: &str = include_str!("../../tests/messages/schd_dnld_turnaround.xml");

    #[test]
    fn a_record_starts_at_an_fltr_tag_only() {
        let body = "<MSG><SCHD><FLTRX/><FLTR>a</FLTR><FLTR\n/></SCHD></MSG>";
        assert_eq!(record_start(body, 0), Some(19));
        assert_eq!(record_start(body, 20), Some(33));
        assert_eq!(record_start(body, 34), None);
    }

    /// The turnaround's FLTRs `times` over, with `edit` applied to the last third of
    /// the text (where the second reader starts).
    fn day(times: usize, edit: impl FnOnce(&str) -> String) -> String {
        let start = TURNAROUND.find("<FLTR>").expect("an FLTR");
        let end = TURNAROUND.rfind("</SCHD>").expect("an SCHD");
        let xml = format!(
            "{}{}{}",
            &TURNAROUND[..start],
            TURNAROUND[start..end].repeat(times),
            &TURNAROUND[end..]
        );
        let third = xml.len() - xml.len() / 3;
        format!("{}{}", &xml[..third], edit(&xml[third..]))
    }

    /// `text` with its last `from` replaced by `to`.
    fn last(text: &str, from: &str, to: &str) -> String {
        let at = text.rfind(from).expect("found");
        format!("{}{to}{}", &text[..at], &text[at + from.len()..])
    }

    /// A change to the tail of a day.
    type Edit = fn(&str) -> String;

    type Reading = (Result<Message, String>, Vec<FlightRecord>);

    fn read(xml: &str, two_cores: bool) -> (Reading, bool) {
        let mut handed = Vec::new();
        let mut to = |record| handed.push(record);
        let mut early = EarlyRecords::handed(&mut to);
        let opts = ParseOptions {
            operation_day_element: Some("OPDY".into()),
            ..ParseOptions::default()
        };
        let read = |early: &mut EarlyRecords<'_>| -> Result<_, ProtocolError> {
            let document = Document::decode(xml.as_bytes())?;
            if two_cores {
                read_telling(&document, early)
            } else {
                let root = document.read_with(|a, e| early.closed(a, e))?;
                Ok((root, false))
            }
        };
        let (message, taken) = match read(&mut early) {
            Ok((root, taken)) => (parse_message(&root, &opts, early), taken),
            Err(e) => (Err(e), false),
        };
        ((message.map_err(|e| e.to_string()), handed), taken)
    }

    /// Reads `xml` on one core and on two, asserts both read alike, and says whether the
    /// second reader's records were taken.
    #[track_caller]
    fn alike(xml: &str) -> (Result<Message, String>, bool) {
        let (one, _) = read(xml, false);
        let (two, taken) = read(xml, true);
        assert_eq!(one, two, "one core, then two");
        (one.0, taken)
    }

    #[test]
    fn a_day_reads_alike_with_its_tail_read_on_a_second_core() {
        let xml = day(12, str::to_owned);
        let (message, taken) = alike(&xml);
        assert!(taken, "the tail was taken");
        assert!(message.is_ok(), "{message:?}");
        let (one, _) = read(&xml, false);
        assert_eq!(one.1.len(), 24, "every record handed on");
    }

    #[test]
    fn a_day_that_is_no_snapshot_keeps_its_tail_in_the_message() {
        let xml = day(12, str::to_owned).replace("<STYP>DNLD</STYP>", "<STYP>ADFT</STYP>");
        let (message, taken) = alike(&xml);
        assert!(taken);
        let Ok(Message {
            body: crate::protocol::Body::Schedule(schedule),
            ..
        }) = message
        else {
            panic!("a schedule: {message:?}");
        };
        assert_eq!(schedule.flights.len(), 24);
    }

    #[test]
    fn errors_in_the_tail_are_the_one_core_errors() {
        let cases: [(&str, Edit); 8] = [
            ("a wrong end tag", |t| last(t, "</SCHD>", "</SCHX>")),
            ("no end", |t| last(t, "</MSG>", "")),
            ("text after the root", |t| format!("{t}junk")),
            ("an element after the root", |t| format!("{t}<MSG/>")),
            ("a bad value", |t| {
                last(t, "<MAXP>158</MAXP>", "<MAXP>x</MAXP>")
            }),
            ("stray text", |t| last(t, "</FLTR>", "</FLTR>junk")),
            ("a declaration", |t| last(t, "</FLTR>", "</FLTR><?pi x?>")),
            ("a second SCHD", |t| last(t, "</SCHD>", "</SCHD><SCHD/>")),
        ];
        for (case, edit) in cases {
            let (message, taken) = alike(&day(12, edit));
            assert!(!taken, "{case}: read on from the split");
            if case != "a declaration" {
                assert!(message.is_err(), "{case}: {message:?}");
            }
        }
    }

    #[test]
    fn the_tail_is_numbered_on_from_the_head() {
        let xml = day(12, |t| last(t, "</SCHD>", "<RECS>2</RECS></SCHD>"));
        let (message, taken) = alike(&xml);
        assert!(taken);
        assert!(
            message
                .as_ref()
                .is_err_and(|e| e.contains("MSG/SCHD/RECS[2]")),
            "{message:?}"
        );
    }

    #[test]
    fn a_split_the_first_reader_does_not_see_is_read_on() {
        let comment = |t: &str| {
            let at = t.find("<FLTR>").expect("an FLTR");
            format!("{}<!--{}-->{}", &t[..at], &t[at..at + 40], &t[at..])
        };
        let (message, taken) = alike(&day(12, comment));
        assert!(message.is_ok() && !taken, "{message:?}");
    }

    #[test]
    fn a_failed_fltr_before_the_split_is_the_error() {
        let xml = day(12, str::to_owned).replacen("<MAXP>158</MAXP>", "<MAXP>x</MAXP>", 1);
        let (message, taken) = alike(&xml);
        assert!(!taken);
        assert!(
            message.as_ref().is_err_and(|e| e.contains("FLTR[1]")),
            "{message:?}"
        );
    }

    #[test]
    fn content_after_the_schedule_is_read_on() {
        let (message, taken) = alike(&day(12, |t| last(t, "</SCHD>", "</SCHD><NOTE/>")));
        assert!(!taken);
        assert!(message.is_ok_and(|m| m.unknown == ["NOTE"]));
    }

    #[test]
    fn text_in_the_schedule_before_the_split_is_stray() {
        let xml = day(1, str::to_owned).replacen(
            "<RECS>2</RECS>",
            &format!("junk<!--{}--><RECS>2</RECS>", "x".repeat(8000)),
            1,
        );
        let (message, taken) = alike(&xml);
        assert!(!taken);
        assert!(
            message.as_ref().is_err_and(|e| e.contains("junk")),
            "{message:?}"
        );
    }
}
