//! Properties of the SIS parser: no input makes it panic, every message it can hold is
//! written by `to_xml` and read back equal, and a message reads the same from a slice or a
//! reader, on one core or on two.

use chrono::{NaiveDate, NaiveDateTime};
use flightstate::protocol::{
    AbortKind, Body, BridgeEvent, CarouselAllocation, ChockEvent, ChockState, ChuteAllocation,
    CounterAllocation, Delay, Diversion, DiversionDirection, Field, FlightIndicator,
    FlightOperation, FlightRecord, FlightReturn, FlopSubtype, GateAllocation, Group, LandingAbort,
    Message, Meta, Minutes, Movement, NoValue, ParseOptions, PortAction, PortEvent, PushEvent,
    ReturnKind, RoutePoint, Schedule, ScheduleSubtype, StandAllocation, TractorEvent, parse_reader,
    parse_slice, parse_slice_handing, to_xml_with,
};
use proptest::prelude::*;

const CASES: u32 = 256;

/// A message written from the golden set, so that mutations land in real SIS structure.
const SEED_MESSAGE: &str = include_str!("messages/schd_dnld_turnaround.xml");

fn options() -> ParseOptions {
    ParseOptions {
        operation_day_element: Some("OPDY".into()),
        ..ParseOptions::default()
    }
}

/// The seed's FLTRs six times over: a snapshot whose last third, where a second reader
/// starts, holds whole records.
fn many_records() -> String {
    let start = SEED_MESSAGE.find("<FLTR>").expect("the seed has an FLTR");
    let end = SEED_MESSAGE.rfind("</SCHD>").expect("the seed has an SCHD");
    format!(
        "{}{}{}",
        &SEED_MESSAGE[..start],
        SEED_MESSAGE[start..end].repeat(3),
        &SEED_MESSAGE[end..]
    )
}

/// Reads every message, however small, on two cores (one core with `false`).
fn cores(two: bool) -> ParseOptions {
    ParseOptions {
        second_reader_from_bytes: two.then_some(0),
        ..options()
    }
}

/// The message or its error, and the records handed on while it was read.
fn read_handing(bytes: &[u8], opts: &ParseOptions) -> (Result<Message, String>, Vec<FlightRecord>) {
    let mut handed = Vec::new();
    let message = parse_slice_handing(bytes, opts, &mut |record| handed.push(record))
        .map_err(|e| e.to_string());
    (message, handed)
}

/// Pieces of XML that change how a tail reads: record and schedule boundaries, comments,
/// CDATA, declarations, references.
const FRAGMENTS: &[&str] = &[
    "<FLTR>",
    "</FLTR>",
    "<FLTR/>",
    "</SCHD>",
    "<SCHD>",
    "</MSG>",
    "<MSG>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<?pi?>",
    "&amp;",
    "&#1;",
    "junk",
    "<RECS>2</RECS>",
    "<OPDY>02MAR24</OPDY>",
    "<X/>",
];

/// Deterministic choices read from proptest's bytes: shrinking the bytes towards zeros
/// shrinks the message towards absent fields.
struct Source<'a> {
    bytes: &'a [u8],
    at: usize,
}

const WORD_CHARS: &[char] = &[
    'A', 'B', 'C', 'X', 'Y', 'Z', 'a', 'q', '0', '1', '7', '9', '-', '/', ' ', '&', '<', '>', '"',
    '\'', '中', '文', '航',
];

impl Source<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn below(&mut self, n: u64) -> u64 {
        let wide = (0..4).fold(0u64, |acc, _| acc << 8 | u64::from(self.byte()));
        wide % n
    }

    fn pick<T: Copy>(&mut self, options: &[T]) -> T {
        options[self.below(options.len() as u64) as usize]
    }

    /// Text as a sender writes it: trimmed, possibly with markup characters and CJK.
    fn note(&mut self) -> String {
        let len = self.below(9);
        let raw: String = (0..len).map(|_| self.pick(WORD_CHARS)).collect();
        raw.trim().to_owned()
    }

    fn text(&mut self) -> String {
        let note = self.note();
        if note.is_empty() { "X".into() } else { note }
    }

    fn code(&mut self) -> char {
        self.pick(&['A', 'D', 'E', 'I', 'W', 'Y', '3'])
    }

    fn day(&mut self) -> NaiveDate {
        let (y, m, d) = (
            2000 + self.below(100) as i32,
            1 + self.below(12) as u32,
            1 + self.below(31) as u32,
        );
        NaiveDate::from_ymd_opt(y, m, d)
            .or_else(|| NaiveDate::from_ymd_opt(y, m, 28))
            .expect("the 28th exists in every month")
    }

    fn time(&mut self) -> NaiveDateTime {
        let day = self.day();
        day.and_hms_opt(self.below(24) as u32, self.below(60) as u32, 0)
            .expect("hours and minutes are in range")
    }

    fn message_time(&mut self) -> NaiveDateTime {
        let day = self.day();
        day.and_hms_opt(
            self.below(24) as u32,
            self.below(60) as u32,
            self.below(60) as u32,
        )
        .expect("hours, minutes and seconds are in range")
    }

    fn field<T>(&mut self, value: impl FnOnce(&mut Self) -> T) -> Field<T> {
        match self.byte() % 3 {
            0 => Field::Absent,
            1 => Field::Empty,
            _ => Field::Value(value(self)),
        }
    }

    fn group<T>(&mut self, item: impl Fn(&mut Self) -> T) -> Group<T> {
        match self.byte() % 3 {
            0 => Group::Absent,
            1 => Group::Empty,
            _ => {
                let count = 1 + self.below(3);
                Group::Items((0..count).map(|_| item(self)).collect())
            }
        }
    }

    /// A sequence attribute always carries a value, so an entry is never a blank element.
    fn sequence(&mut self) -> Field<u32> {
        Field::Value(1 + self.below(40) as u32)
    }

    fn record(&mut self, full: bool) -> FlightRecord {
        let mandatory_text = |s: &mut Self| {
            if full {
                Field::Value(s.text())
            } else {
                s.field(Self::text)
            }
        };
        FlightRecord {
            flid: 1 + self.below(999_999_999_999) as i64,
            ffid: self.field(Self::text),
            alcd: mandatory_text(self),
            alsc: self.field(Self::text),
            flno: mandatory_text(self),
            mvin: if full {
                Field::Value(self.pick(&[Movement::Arrival, Movement::Departure]))
            } else {
                self.field(|s| s.pick(&[Movement::Arrival, Movement::Departure]))
            },
            sodt: if full {
                Field::Value(self.time())
            } else {
                self.field(Self::time)
            },
            flty: if full {
                Field::Value(self.code())
            } else {
                self.field(Self::code)
            },
            flin: {
                let all = [
                    FlightIndicator::Domestic,
                    FlightIndicator::International,
                    FlightIndicator::Mixed,
                ];
                if full {
                    Field::Value(self.pick(&all))
                } else {
                    self.field(|s| s.pick(&all))
                }
            },
            acft: mandatory_text(self),
            reno: self.field(Self::text),
            taop: self.field(Self::text),
            tafl: self.field(Self::text),
            taid: self.field(|s| 1 + s.below(999_999_999_999) as i64),
            trml: self.field(Self::text),
            maxp: self.field(|s| s.below(u64::from(u32::MAX)) as u32),
            csop: self.field(Self::text),
            csft: self.field(Self::text),
            maid: self.field(|s| 1 + s.below(999_999_999_999) as i64),
            estt: self.field(Self::time),
            actt: self.field(Self::time),
            stnd: self.field(Self::text),
            phag: self.field(|s| s.below(1_000_000) as u32),
            fhag: self.field(|s| s.below(1_000_000) as u32),
            mhag: self.field(|s| s.below(1_000_000) as u32),
            cncl: self.field(Self::time),
            remc: self.field(Self::text),
            botm: self.field(Self::time),
            lacl: self.field(Self::time),
            fint: self.field(Self::time),
            appt: self.field(Self::time),
            egsr: self.field(Self::time),
            egst: self.field(Self::time),
            vipp: self.field(|s| s.below(100) as u32),
            vipr: self.field(|s| s.byte()),
            lbno: self.field(|s| s.below(1000) as u32),
            lbwt: self.field(|s| s.below(10_000_000) as f64 / 100.0),
            paxc: self.field(|s| s.below(1000) as u32),
            exsc: self.field(Self::text),
            exsr: self.field(Self::text),
            ftss: self.field(Self::text),
            pedt: self.field(Self::time),
            neat: self.field(Self::time),
            padt: self.field(Self::time),
            naat: self.field(Self::time),
            cobt: self.field(Self::time),
            tobt: self.field(Self::time),
            eobt: self.field(Self::time),
            iest: self.field(Self::time),
            ctot: self.field(Self::time),
            runw: self.field(Self::text),
            fdel: if self.byte().is_multiple_of(2) {
                Field::Absent
            } else {
                Field::<NoValue>::Empty
            },
            fdiv: self.field(|s| Diversion {
                ddes: s.text(),
                ddir: s.pick(&[DiversionDirection::To, DiversionDirection::From]),
                text: s.note(),
            }),
            fret: self.field(|s| FlightReturn {
                reid: s.pick(&[ReturnKind::Air, ReturnKind::Ground]),
                text: s.note(),
            }),
            flab: self.field(|s| LandingAbort {
                ares: s.pick(&[AbortKind::Overshoot, AbortKind::GoAround]),
                text: s.note(),
            }),
            port: self.group(|s| PortEvent {
                potm: match s.field(Self::time) {
                    Field::Absent => Field::Empty,
                    other => other,
                },
                poid: s.field(|s| s.pick(&[PortAction::Open, PortAction::Close])),
            }),
            gtdt: self.group(|s| GateAllocation {
                gtno: s.sequence(),
                gate: s.field(Self::text),
                pgot: s.field(Self::time),
                pgct: s.field(Self::time),
                gotm: s.field(Self::time),
                gctm: s.field(Self::time),
                gtyp: s.field(Self::code),
            }),
            ckdt: self.group(|s| CounterAllocation {
                ckno: s.sequence(),
                chkc: s.field(Self::text),
                ccls: s.field(Self::code),
                pcot: s.field(Self::time),
                pcct: s.field(Self::time),
                cotm: s.field(Self::time),
                cctm: s.field(Self::time),
                ctyp: s.field(Self::code),
            }),
            cldt: self.group(|s| CarouselAllocation {
                clno: s.sequence(),
                belt: s.field(Self::text),
                bcls: s.field(Self::code),
                pcot: s.field(Self::time),
                pcct: s.field(Self::time),
                fbag: s.field(Self::time),
                lbag: s.field(Self::time),
                btyp: s.field(Self::code),
            }),
            psdt: self.group(|s| StandAllocation {
                psno: s.sequence(),
                psst: s.field(Self::text),
                stst: s.field(Self::time),
                stet: s.field(Self::time),
            }),
            chdt: self.group(|s| ChuteAllocation {
                chno: s.sequence(),
                chut: s.field(Self::text),
                ccls: s.field(Self::code),
                pcbt: s.field(Self::time),
                pcet: s.field(Self::time),
                cbtm: s.field(Self::time),
                cetm: s.field(Self::time),
                ctyp: s.field(Self::code),
            }),
            chot: self.group(|s| ChockEvent {
                csno: s.sequence(),
                chtm: s.field(Self::time),
                chid: s.field(|s| s.pick(&[ChockState::On, ChockState::Off])),
                chst: s.field(Self::text),
            }),
            abtm: self.group(|s| BridgeEvent {
                asno: s.sequence(),
                abdg: s.field(Self::text),
                abop: s.field(Self::code),
                aotm: s.field(Self::time),
            }),
            dely: self.group(|s| Delay {
                code: Field::Value(s.text()),
                strt: s.field(Self::time),
                dura: s.field(|s| Minutes(s.below(6000) as u32)),
                text: s.note(),
            }),
            rout: self.group(Self::route_point),
            erut: self.group(Self::route_point),
            psht: self.group(|s| PushEvent {
                pshn: s.sequence(),
                pstm: s.field(Self::time),
                psid: s.field(Self::text),
                pust: s.field(Self::text),
            }),
            tipt: self.group(|s| TractorEvent {
                trtm: match s.field(Self::time) {
                    Field::Absent => Field::Empty,
                    other => other,
                },
                trst: s.field(Self::text),
            }),
            ignored: Vec::new(),
            unknown: Vec::new(),
        }
    }

    fn route_point(&mut self) -> RoutePoint {
        RoutePoint {
            rtno: self.sequence(),
            apcd: self.field(Self::text),
            scat: self.field(Self::time),
            scdt: self.field(Self::time),
        }
    }

    fn message(&mut self) -> Message {
        let body = match self.byte() % 3 {
            0 => Body::Schedule(Schedule {
                subtype: self.pick(&[
                    ScheduleSubtype::Dnld,
                    ScheduleSubtype::Resp,
                    ScheduleSubtype::Adft,
                    ScheduleSubtype::Del,
                ]),
                recs: self.field(|s| s.below(10_000) as u32),
                operation_day: if self.byte().is_multiple_of(2) {
                    None
                } else {
                    Some(self.day())
                },
                flights: (0..self.below(8)).map(|_| self.record(true)).collect(),
                unknown: Vec::new(),
            }),
            1 => Body::FlightOperation(FlightOperation {
                subtype: self.pick(FlopSubtype::ALL),
                flights: (0..1 + self.below(3)).map(|_| self.record(false)).collect(),
            }),
            _ => {
                let (msg_type, subtype) = self.pick(&[
                    ("AIRL", "DNLD"),
                    ("ABDG", "ADD"),
                    ("SCHS", "RESP"),
                    ("RQFD", "NONE"),
                    ("SCHD", "UPD"),
                    ("FLOP", "SRVT"),
                    ("FLOP", "VIPF"),
                ]);
                Body::Unsupported {
                    msg_type: msg_type.to_owned(),
                    subtype: subtype.to_owned(),
                }
            }
        };
        let (msg_type, styp) = match &body {
            Body::Schedule(s) => ("SCHD".to_owned(), s.subtype.code().to_owned()),
            Body::FlightOperation(o) => ("FLOP".to_owned(), o.subtype.code().to_owned()),
            Body::Unsupported { msg_type, subtype } => (msg_type.clone(), subtype.clone()),
        };
        Message {
            meta: Meta {
                sndr: self.text(),
                seqn: self.text(),
                dttm: self.message_time(),
                msg_type,
                styp,
                unknown: Vec::new(),
            },
            body,
            unknown: Vec::new(),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
        let opts = ParseOptions::default();
        let _ = parse_slice(&bytes, &opts);
        let _ = parse_reader(bytes.as_slice(), &opts);
        let small = ParseOptions { max_bytes: 64, ..ParseOptions::default() };
        let _ = parse_slice(&bytes, &small);
        let _ = parse_reader(bytes.as_slice(), &small);
    }

    #[test]
    fn mutated_messages_read_alike_from_a_slice_and_a_reader(
        at in 0usize..SEED_MESSAGE.len(),
        cut in 0usize..64,
        insert in "[<>/&;=\"' a-zA-Z0-9#x!\\[\\]-]{0,12}",
    ) {
        let mut bytes = SEED_MESSAGE.as_bytes().to_vec();
        let end = (at + cut).min(bytes.len());
        bytes.splice(at..end, insert.bytes());
        let opts = options();
        let from_slice = parse_slice(&bytes, &opts).map_err(|e| e.to_string());
        let from_reader = parse_reader(bytes.as_slice(), &opts).map_err(|e| e.to_string());
        prop_assert_eq!(&from_slice, &from_reader);
    }

    #[test]
    fn written_messages_read_back_equal_on_two_cores(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
    ) {
        let message = Source { bytes: &bytes, at: 0 }.message();
        let xml = to_xml_with(&message, &options());
        match parse_slice(xml.as_bytes(), &cores(true)) {
            Ok(parsed) => prop_assert_eq!(parsed, message, "written as:\n{}", xml),
            Err(e) => prop_assert!(false, "{} in:\n{}", e, xml),
        }
    }

    #[test]
    fn written_messages_read_back_equal(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let message = Source { bytes: &bytes, at: 0 }.message();
        let opts = options();
        let xml = to_xml_with(&message, &opts);
        match parse_slice(xml.as_bytes(), &opts) {
            Ok(parsed) => prop_assert_eq!(parsed, message, "written as:\n{}", xml),
            Err(e) => prop_assert!(false, "{} in:\n{}", e, xml),
        }
    }
}

proptest! {
    // A mutation lands in the tail a third of the time, and between two records far less.
    #![proptest_config(ProptestConfig::with_cases(8 * CASES))]

    #[test]
    fn mutated_snapshots_read_alike_on_one_core_and_two(
        at in 0usize..many_records().len(),
        cut in 0usize..64,
        insert in prop_oneof![
            "[<>/&;=\"' a-zA-Z0-9#x!\\[\\]-]{0,12}".boxed(),
            proptest::sample::select(FRAGMENTS).prop_map(str::to_owned).boxed(),
        ],
    ) {
        let mut bytes = many_records().into_bytes();
        let end = (at + cut).min(bytes.len());
        bytes.splice(at..end, insert.bytes());
        prop_assert_eq!(read_handing(&bytes, &cores(false)), read_handing(&bytes, &cores(true)));
        prop_assert_eq!(
            parse_slice(&bytes, &cores(false)).map_err(|e| e.to_string()),
            parse_slice(&bytes, &cores(true)).map_err(|e| e.to_string())
        );
    }
}
