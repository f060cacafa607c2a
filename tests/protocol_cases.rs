//! Named cases of the SIS parser against golden messages in `tests/messages/` (see the
//! README there): each test states one rule of the protocol or one strictness decision.

use std::fs;

use chrono::{NaiveDate, NaiveDateTime};
use flightstate::FailureKind;
use flightstate::protocol::{
    Body, ChockState, Field, FlightOperation, FlightRecord, FlopSubtype, Group, Message, Minutes,
    Movement, ParseOptions, PortAction, ProtocolError, Schedule, ScheduleSubtype, parse_reader,
    parse_slice,
};

fn golden(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/messages/{name}", env!("CARGO_MANIFEST_DIR"));
    fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

fn golden_text(name: &str) -> String {
    String::from_utf8(golden(name)).expect("golden messages are UTF-8")
}

#[track_caller]
fn parses(bytes: &[u8]) -> Message {
    match parse_slice(bytes, &ParseOptions::default()) {
        Ok(message) => message,
        Err(e) => panic!("expected the message to parse, got: {e}"),
    }
}

#[track_caller]
fn rejects(bytes: &[u8]) -> ProtocolError {
    match parse_slice(bytes, &ParseOptions::default()) {
        Ok(message) => panic!("expected a rejection, parsed: {message:?}"),
        Err(e) => {
            assert_eq!(e.kind(), FailureKind::BadInput, "{e}");
            assert!(!e.to_string().contains('\n'), "one line: {e}");
            e
        }
    }
}

#[track_caller]
fn rejects_with(bytes: &[u8], display: &str) -> ProtocolError {
    let e = rejects(bytes);
    assert_eq!(e.to_string(), display);
    e
}

#[track_caller]
fn schedule(message: &Message) -> &Schedule {
    match &message.body {
        Body::Schedule(schedule) => schedule,
        other => panic!("expected a schedule, got {other:?}"),
    }
}

#[track_caller]
fn flight_operation(message: &Message) -> &FlightOperation {
    match &message.body {
        Body::FlightOperation(operation) => operation,
        other => panic!("expected a flight operation, got {other:?}"),
    }
}

#[track_caller]
fn only_flight(message: &Message) -> &FlightRecord {
    let flights = match &message.body {
        Body::Schedule(s) => &s.flights,
        Body::FlightOperation(o) => &o.flights,
        other => panic!("expected flight records, got {other:?}"),
    };
    assert_eq!(flights.len(), 1, "one flight record");
    &flights[0]
}

fn at(text: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M").expect("test times are valid")
}

#[test]
fn snapshot_with_every_collection_parses() {
    let opts = ParseOptions {
        operation_day_element: Some("OPDY".into()),
        ..ParseOptions::default()
    };
    let message = parse_slice(&golden("schd_dnld_turnaround.xml"), &opts).expect("parses");
    assert_eq!(message.meta.seqn, "000417");
    let schd = schedule(&message);
    assert_eq!(schd.subtype, ScheduleSubtype::Dnld);
    assert_eq!(schd.recs, Field::Value(2));
    assert_eq!(schd.operation_day, NaiveDate::from_ymd_opt(2024, 3, 2));
    assert!(schd.unknown.is_empty(), "{:?}", schd.unknown);
    let [arrival, departure] = schd.flights.as_slice() else {
        panic!("two flights");
    };
    assert_eq!(arrival.mvin, Field::Value(Movement::Arrival));
    assert_eq!(arrival.lbwt, Field::Value(1043.5));
    assert_eq!(arrival.chot.items()[0].chid, Field::Value(ChockState::On));
    let ports = arrival.port.items();
    assert_eq!(ports.len(), 2);
    assert_eq!(ports[1].potm, Field::Empty);
    assert_eq!(ports[1].poid, Field::Value(PortAction::Close));
    assert_eq!(arrival.dely.items()[0].text, "air traffic flow & capacity");
    assert_eq!(arrival.dely.items()[1].text, "");
    assert_eq!(departure.maid, Field::Value(880_777));
    assert_eq!(departure.ckdt.items().len(), 2);
    assert_eq!(departure.psht.items()[0].pust, Field::Value("211".into()));
    assert_eq!(departure.tipt.items()[0].trst, Field::Value("211".into()));
    assert_eq!(departure.remc, Field::Value("经停 none".into()));
    assert_eq!(departure.fint, Field::Empty);
    assert!(departure.unknown.is_empty() && departure.ignored.is_empty());
}

#[test]
fn operation_day_element_is_unknown_when_not_configured() {
    let message = parses(&golden("schd_dnld_turnaround.xml"));
    let schd = schedule(&message);
    assert_eq!(schd.operation_day, None);
    assert_eq!(schd.unknown, ["OPDY"]);
}

#[test]
fn mixed_case_month_parses() {
    let message = parses(&golden("schd_dnld_turnaround.xml"));
    let arrival = &schedule(&message).flights[0];
    assert_eq!(arrival.sodt, Field::Value(at("2024-03-02 07:10")));
}

#[test]
fn day_32_is_rejected_not_rolled_over() {
    rejects_with(
        &golden("schd_day_out_of_range.xml"),
        "bad value `32JAN240535` in MSG/SCHD/FLTR[1]/SODT: expected a date-time ddMMMyyHHmm such as 23JAN210535",
    );
}

#[test]
fn delay_duration_0200_is_120_minutes() {
    let message = parses(&golden("flop_dely_two_flights.xml"));
    let delays = flight_operation(&message).flights[0].dely.items();
    assert_eq!(delays[0].dura, Field::Value(Minutes(120)));
    assert_eq!(delays[0].code, Field::Value("81".into()));
    assert_eq!(delays[0].strt, Field::Value(at("2024-03-02 04:20")));
}

#[test]
fn empty_group_element_clears_the_collection() {
    let message = parses(&golden("flop_dely_two_flights.xml"));
    let operation = flight_operation(&message);
    assert_eq!(operation.subtype, FlopSubtype::Dely);
    assert_eq!(operation.flights.len(), 2, "several <FLOP> siblings");
    assert_eq!(operation.flights[1].dely, Group::Empty);
    assert_eq!(operation.flights[1].gtdt, Group::Absent);
}

#[test]
fn empty_group_element_among_entries_is_rejected() {
    rejects_with(
        &golden("flop_dely_clear_among_entries.xml"),
        "bad value `<DELY></DELY>` in MSG/FLOP[1]/DELY[2]: expected entries only, or one empty element that clears the collection",
    );
}

#[test]
fn self_closing_and_open_close_empty_elements_are_the_same() {
    let self_closing = parses(&golden("flop_botm_self_closing.xml"));
    let open_close = parses(&golden("flop_botm_open_close.xml"));
    assert_eq!(self_closing, open_close);
    assert_eq!(only_flight(&self_closing).botm, Field::Empty);
}

#[test]
fn value_is_trimmed_of_surrounding_whitespace() {
    let message = parses(&golden("flop_botm_value.xml"));
    assert_eq!(
        only_flight(&message).botm,
        Field::Value(at("2024-03-02 08:48"))
    );
}

#[test]
fn attribute_with_spaces_around_equals_is_read() {
    let message = parses(&golden("schd_dnld_turnaround.xml"));
    let route = schedule(&message).flights[0].rout.items();
    assert_eq!(route[0].rtno, Field::Value(1));
    assert_eq!(route[0].apcd, Field::Value("PEK".into()));
}

#[test]
fn absent_empty_and_value_are_three_states() {
    let message = parses(&golden("flop_hnag_three_states.xml"));
    let flight = only_flight(&message);
    assert_eq!(flight.phag, Field::Value(110_009));
    assert_eq!(flight.fhag, Field::Empty);
    assert_eq!(flight.mhag, Field::Absent);
    let json = serde_json::to_value(flight).expect("serializes");
    assert_eq!(json["PHAG"], 110_009);
    assert!(json["FHAG"].is_null() && json.get("FHAG").is_some());
    assert!(json.get("MHAG").is_none());
}

#[test]
fn not_well_formed_document_is_rejected() {
    rejects_with(
        &golden("not_well_formed.xml"),
        "not well-formed XML at line 6, column 14: ill-formed document: expected `</STND>`, but `</STAND>` was found",
    );
}

#[test]
fn stray_text_between_elements_is_rejected() {
    rejects_with(&golden("stray_text.xml"), "stray text `x` in MSG/FLOP[1]");
}

#[test]
fn entity_expansion_document_is_rejected_without_expanding() {
    let e = rejects_with(
        &golden("billion_laughs.xml"),
        "DOCTYPE at line 2, column 1 is not allowed: SIS messages carry no DTD",
    );
    assert!(matches!(e, ProtocolError::Doctype { .. }));
}

#[test]
fn undeclared_entity_is_rejected() {
    rejects_with(
        &golden("undeclared_entity.xml"),
        "unknown entity reference `&nbsp;` at line 6, column 15",
    );
}

#[test]
fn over_size_document_is_rejected_by_both_entry_points() {
    let bytes = golden("schd_dnld_turnaround.xml");
    let opts = ParseOptions {
        max_bytes: bytes.len() - 1,
        ..ParseOptions::default()
    };
    let expected = format!(
        "message is too large: {} bytes read, the limit is {} bytes",
        bytes.len(),
        bytes.len() - 1
    );
    let from_slice = parse_slice(&bytes, &opts).expect_err("too large");
    assert_eq!(from_slice.to_string(), expected);
    let from_reader = parse_reader(bytes.as_slice(), &opts).expect_err("too large");
    assert_eq!(from_reader.to_string(), expected);
    assert_eq!(from_reader.kind(), FailureKind::BadInput);

    let exact = ParseOptions {
        max_bytes: bytes.len(),
        ..ParseOptions::default()
    };
    assert!(parse_reader(bytes.as_slice(), &exact).is_ok());
}

#[test]
fn reader_stops_after_the_limit() {
    let endless = std::io::repeat(b' ');
    let opts = ParseOptions {
        max_bytes: 1024,
        ..ParseOptions::default()
    };
    let e = parse_reader(endless, &opts).expect_err("too large");
    assert_eq!(
        e.to_string(),
        "message is too large: 1025 bytes read, the limit is 1024 bytes"
    );
}

#[test]
fn fltr_missing_a_mandatory_element_names_it() {
    let text = golden_text("schd_adft_one_flight.xml");
    assert_eq!(
        schedule(&parses(text.as_bytes())).subtype,
        ScheduleSubtype::Adft
    );
    for name in [
        "FLID", "ALCD", "FLNO", "MVIN", "SODT", "FLTY", "FLIN", "ACFT",
    ] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("<{name}>")))
            .unwrap_or_else(|| panic!("the golden FLTR has {name}"));
        let without = text.replace(&format!("{line}\n"), "");
        rejects_with(
            without.as_bytes(),
            &format!("mandatory element MSG/SCHD/FLTR[1]/{name} is missing"),
        );
        let empty = text.replace(line, &format!("<{name}/>"));
        rejects_with(
            empty.as_bytes(),
            &format!("mandatory element MSG/SCHD/FLTR[1]/{name} is empty"),
        );
    }
}

#[test]
fn flop_body_needs_only_flid() {
    let text = golden_text("flop_hnag_three_states.xml");
    let without = text.replace("<FLID>880002</FLID>", "");
    rejects_with(
        without.as_bytes(),
        "mandatory element MSG/FLOP[1]/FLID is missing",
    );
}

#[test]
fn diversion_direction_too_is_rejected() {
    rejects_with(
        &golden("flop_fdiv_bad_direction.xml"),
        "bad value `TOO` in MSG/FLOP[1]/FDIV/@DDIR: expected TO or FROM",
    );
}

#[test]
fn unsupported_type_is_a_value_not_an_error() {
    let message = parses(&golden("airl_add_unsupported.xml"));
    assert_eq!(
        message.body,
        Body::Unsupported {
            msg_type: "AIRL".into(),
            subtype: "ADD".into()
        }
    );
}

#[test]
fn unsupported_flop_subtype_is_a_value_not_an_error() {
    let message = parses(&golden("flop_srvt_unsupported.xml"));
    assert_eq!(
        message.body,
        Body::Unsupported {
            msg_type: "FLOP".into(),
            subtype: "SRVT".into()
        }
    );
    let unknown = golden_text("flop_botm_self_closing.xml").replace(">BOTM<", ">WXYZ<");
    let message = parses(unknown.as_bytes());
    assert_eq!(
        message.body,
        Body::Unsupported {
            msg_type: "FLOP".into(),
            subtype: "WXYZ".into()
        }
    );
}

#[test]
fn unsupported_message_still_needs_a_sound_envelope() {
    let text = golden_text("airl_add_unsupported.xml").replace("20240302081500", "20240230081500");
    rejects_with(
        text.as_bytes(),
        "bad value `20240230081500` in MSG/META/DTTM: expected a time yyyyMMddHHmmss such as 20021010090311",
    );
}

#[test]
fn envelope_type_and_subtype_are_trimmed() {
    let message = parses(&golden("schd_adft_one_flight.xml"));
    assert_eq!(message.meta.msg_type, "SCHD");
    assert_eq!(message.meta.styp, "ADFT");
    assert_eq!(message.meta.seqn, "A-17");
}

#[test]
fn duplicate_scalar_is_rejected() {
    rejects_with(
        &golden("schd_duplicate_sodt.xml"),
        "element MSG/SCHD/FLTR[1]/SODT[2] appears more than once",
    );
}

#[test]
fn out_of_scope_and_unknown_elements_are_listed_not_dropped() {
    let message = parses(&golden("schd_unknown_and_ignored.xml"));
    let flight = only_flight(&message);
    assert_eq!(flight.ignored, ["SRVT", "VIPF"]);
    assert_eq!(flight.unknown, ["GTDT/@ZONE", "GTDT/GLOC", "XWND"]);
    assert_eq!(flight.gtdt.items()[0].gate, Field::Value("G12".into()));
}

#[test]
fn wrong_root_is_rejected() {
    rejects_with(
        b"<SIS><META/></SIS>",
        "root element is <SIS>, expected <MSG>",
    );
}

#[test]
fn fdel_is_an_empty_marker_and_a_value_is_rejected() {
    let text = golden_text("flop_fdel.xml");
    let message = parses(text.as_bytes());
    assert_eq!(flight_operation(&message).subtype, FlopSubtype::Fdel);
    assert_eq!(only_flight(&message).fdel, Field::Empty);
    let with_value = text.replace("<FDEL></FDEL>", "<FDEL>Y</FDEL>");
    rejects_with(
        with_value.as_bytes(),
        "bad value `Y` in MSG/FLOP[1]/FDEL: expected nothing: the element must be empty",
    );
}

#[test]
fn landing_abort_without_code_clears_unless_a_reason_is_given() {
    let text = golden_text("flop_flab_clear.xml");
    assert_eq!(only_flight(&parses(text.as_bytes())).flab, Field::Empty);
    let bare = text.replace("<FLAB ARES=\"\"></FLAB>", "<FLAB/>");
    assert_eq!(only_flight(&parses(bare.as_bytes())).flab, Field::Empty);
    let with_reason = text.replace("></FLAB>", ">low visibility</FLAB>");
    rejects_with(
        with_reason.as_bytes(),
        "bad value `` in MSG/FLOP[1]/FLAB/@ARES: expected O or G when a reason is given",
    );
    let wrong_code = text.replace("ARES=\"\"", "ARES=\"X\"");
    rejects_with(
        wrong_code.as_bytes(),
        "bad value `X` in MSG/FLOP[1]/FLAB/@ARES: expected O or G",
    );
}

/// The records `parse_slice_handing` hands on, by FLID, and the message.
fn observed(bytes: &[u8]) -> (Vec<i64>, Result<Message, ProtocolError>) {
    let mut seen = Vec::new();
    let parsed = flightstate::protocol::parse_slice_handing(
        bytes,
        &ParseOptions::default(),
        &mut |record: FlightRecord| seen.push(record.flid),
    );
    (seen, parsed)
}

fn generated_snapshot(flights: usize) -> String {
    let options = flightstate::synth::DayOptions {
        flights,
        ..flightstate::synth::DayOptions::default()
    };
    flightstate::protocol::to_xml(&flightstate::synth::snapshot_of(
        &options,
        flightstate::synth::Moment::Opening,
    ))
}

#[test]
fn a_snapshot_shows_each_record_in_order_as_it_is_read() {
    let xml = generated_snapshot(12);
    let (seen, parsed) = observed(xml.as_bytes());
    let mut whole = parses(xml.as_bytes());
    let flids: Vec<i64> = schedule(&whole).flights.iter().map(|f| f.flid).collect();
    assert_eq!(flids.len(), 12);
    assert_eq!(seen, flids);
    // The records shown are not kept; the rest of the message is as read
    // whole.
    if let Body::Schedule(schedule) = &mut whole.body {
        schedule.flights.clear();
    }
    assert_eq!(parsed.expect("parses"), whole);
}

#[test]
fn records_of_other_messages_are_not_shown() {
    let (seen, parsed) = observed(&golden("schd_adft_one_flight.xml"));
    assert_eq!(schedule(&parsed.expect("parses")).flights.len(), 1);
    assert!(seen.is_empty(), "{seen:?}");
    let (seen, parsed) = observed(&golden("flop_dely_two_flights.xml"));
    parsed.expect("parses");
    assert!(seen.is_empty(), "{seen:?}");
}

#[test]
fn a_snapshot_whose_meta_comes_last_shows_no_record() {
    let xml = generated_snapshot(3);
    let (start, end) = (
        xml.find("<META>").expect("META"),
        xml.find("</META>").expect("/META") + "</META>".len(),
    );
    let meta = &xml[start..end];
    let moved = xml
        .replacen(meta, "", 1)
        .replacen("</MSG>", &format!("{meta}</MSG>"), 1);
    let (seen, parsed) = observed(moved.as_bytes());
    assert_eq!(schedule(&parsed.expect("parses")).flights.len(), 3);
    assert!(seen.is_empty(), "{seen:?}");
}

#[test]
fn records_are_shown_up_to_the_first_that_fails() {
    let xml = generated_snapshot(8);
    let whole = parses(xml.as_bytes());
    let flids: Vec<i64> = schedule(&whole).flights.iter().map(|f| f.flid).collect();
    // One FLID that is no number, in the first half and in the second.
    for failing in [2, 6] {
        let at = xml.match_indices("<FLID>").nth(failing).expect("an FLID").0 + "<FLID>".len();
        let broken = format!("{}X{}", &xml[..at], &xml[at..]);
        let (seen, parsed) = observed(broken.as_bytes());
        assert_eq!(seen, flids[..failing]);
        let e = parsed.expect_err("the record fails");
        assert!(
            e.to_string()
                .contains(&format!("FLTR[{}]/FLID", failing + 1)),
            "{e}"
        );
    }
}
