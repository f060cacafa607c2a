//! The merge rules of flight events (FLOP) and ad-hoc flights (SCHD ADFT):
//! what each FLOP subtype changes in a flight's full state, declared once as
//! [`MERGE_TABLE`], and what an ADFT's absent elements mean.
//!
//! Pure: no I/O. The pipeline computes a flight's new state with these rules
//! once, inside its transaction; tests compute the same state in memory.
//! `docs/events.md` is the prose of this module.
//!
//! Common to every subtype: the body is cut down to the elements of its
//! row (everything else in a `<FLOP>` is ignored, as the peer does), plus
//! FFID, which a value records in `FFID`. A body that carries **none** of
//! its row's elements is refused: "absent" is not a clear (an empty element
//! is), and guessing either way would hide a sender's mistake
//! (PROTOCOL §7.11, `FLOP_TOBT_1`).

use super::flight::{FlightFields, FlightState, Stand};
use super::from_record::state_from_record;
use crate::protocol::{Field, FlightRecord, FlopSubtype, Group, PortAction};

mod error;
mod reports;
mod rules;

use CollectionKind as C;
use Effect::*;
pub use error::MergeError;
use reports::*;
pub use rules::*;

/// Whether and how an element is in a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Presence {
    Absent,
    Empty,
    Value,
}

impl Presence {
    fn of<T>(field: &Field<T>) -> Presence {
        match field {
            Field::Absent => Presence::Absent,
            Field::Empty => Presence::Empty,
            Field::Value(_) => Presence::Value,
        }
    }

    fn of_group<T>(group: &Group<T>) -> Presence {
        match group {
            Group::Absent => Presence::Absent,
            Group::Empty => Presence::Empty,
            Group::Items(_) => Presence::Value,
        }
    }
}

/// The element table of the flight record as the merge sees it: for each
/// scalar element, the record field and the state columns it fills; for
/// each group, the record field.
macro_rules! elements {
    (
        scalars { $( $s_name:literal : $s_field:ident => [ $( $column:ident ),* ], )+ }
        groups { $( $g_name:literal : $g_field:ident, )+ }
    ) => {
        /// Every scalar element, for ADFT's "absent keeps".
        const SCALAR_ELEMENTS: &[&str] = &[ $( $s_name ),+ ];

        /// Copies element `name` from `from` into `into`; its presence, or
        /// `None` for a name the record does not have.
        fn project(from: &FlightRecord, into: &mut FlightRecord, name: &str) -> Option<Presence> {
            match name {
                $( $s_name => { into.$s_field = from.$s_field.clone(); Some(Presence::of(&from.$s_field)) } )+
                $( $g_name => { into.$g_field = from.$g_field.clone(); Some(Presence::of_group(&from.$g_field)) } )+
                _ => None,
            }
        }

        /// The presence of element `name` in `record`.
        fn presence(record: &FlightRecord, name: &str) -> Presence {
            match name {
                $( $s_name => Presence::of(&record.$s_field), )+
                $( $g_name => Presence::of_group(&record.$g_field), )+
                _ => Presence::Absent,
            }
        }

        /// Copies the columns that scalar element `name` fills.
        fn copy_columns(into: &mut FlightFields, from: &FlightFields, name: &str) {
            match name {
                $( $s_name => { $( into.$column = from.$column.clone(); )* } )+
                _ => {}
            }
        }
    };
}

elements! {
    scalars {
        "FFID": ffid => [ffid],
        "ALCD": alcd => [alcd],
        "ALSC": alsc => [alsc],
        "FLNO": flno => [flno],
        "MVIN": mvin => [mvin],
        "SODT": sodt => [sodt],
        "FLTY": flty => [flty],
        "FLIN": flin => [flin],
        "ACFT": acft => [acft],
        "RENO": reno => [reno],
        "TAOP": taop => [taop],
        "TAFL": tafl => [tafl],
        "TAID": taid => [taid],
        "TRML": trml => [trml],
        "MAXP": maxp => [maxp],
        "CSOP": csop => [csop],
        "CSFT": csft => [csft],
        "MAID": maid => [maid],
        "ESTT": estt => [estt],
        "ACTT": actt => [actt],
        "STND": stnd => [stnd],
        "PHAG": phag => [phag],
        "FHAG": fhag => [fhag],
        "MHAG": mhag => [mhag],
        "CNCL": cncl => [cncl],
        "REMC": remc => [remc],
        "BOTM": botm => [botm],
        "LACL": lacl => [lacl],
        "FINT": fint => [fint],
        "APPT": appt => [appt],
        "EGSR": egsr => [egsr],
        "EGST": egst => [egst],
        "VIPP": vipp => [vipp],
        "VIPR": vipr => [vipr],
        "LBNO": lbno => [lbno],
        "LBWT": lbwt => [lbwt],
        "PAXC": paxc => [paxc],
        "EXSC": exsc => [exsc],
        "EXSR": exsr => [exsr],
        "FTSS": ftss => [ftss],
        "PEDT": pedt => [pedt],
        "NEAT": neat => [neat],
        "PADT": padt => [padt],
        "NAAT": naat => [naat],
        "COBT": cobt => [cobt],
        "TOBT": tobt => [tobt],
        "EOBT": eobt => [eobt],
        "IEST": iest => [iest],
        "CTOT": ctot => [ctot],
        "RUNW": runw => [runw],
        "FDIV": fdiv => [fdiv_ddes, fdiv_ddir, fdiv],
        "FRET": fret => [fret_reid, fret],
        "FLAB": flab => [flab_ares, flab],
        "FDEL": fdel => [],
    }
    groups {
        "PORT": port,
        "GTDT": gtdt,
        "CKDT": ckdt,
        "CLDT": cldt,
        "PSDT": psdt,
        "CHDT": chdt,
        "CHOT": chot,
        "ABTM": abtm,
        "DELY": dely,
        "ROUT": rout,
        "ERUT": erut,
        "PSHT": psht,
        "TIPT": tipt,
    }
}

/// A FLOP body checked against its rule and converted: applying it to any
/// state can no longer fail.
#[derive(Clone, Debug, PartialEq)]
pub struct FlightEvent {
    rule: &'static MergeRule,
    /// The body cut down to the rule's elements (and FFID).
    record: FlightRecord,
    /// `record` as state values (length-checked).
    values: FlightState,
    /// PSHT / TIPT reports, converted.
    reports: Vec<Stand>,
}

impl FlightEvent {
    /// The flight the event is about.
    pub fn flid(&self) -> i64 {
        self.record.flid
    }

    /// Its subtype.
    pub fn subtype(&self) -> FlopSubtype {
        self.rule.subtype
    }
}

/// Checks one `<FLOP>` body of `subtype` against its rule and the site's
/// collection semantics, and converts it.
///
/// # Errors
///
/// [`MergeError`] when the body cannot be applied (the message is DEAD).
pub fn prepare_event(
    subtype: FlopSubtype,
    record: &FlightRecord,
    collections: &CollectionRules,
) -> Result<FlightEvent, MergeError> {
    let rule = merge_rule(subtype).ok_or(MergeError::NoRule(subtype.code()))?;
    let flid = record.flid;
    let styp = subtype.code();
    let mut projected = FlightRecord {
        flid,
        ffid: record.ffid.clone(),
        ..FlightRecord::default()
    };
    let mut presences = Vec::with_capacity(rule.elements.len());
    for element in rule.elements {
        presences.push(project(record, &mut projected, element).ok_or(MergeError::NoRule(styp))?);
    }
    if presences.iter().all(|p| *p == Presence::Absent) {
        return Err(MergeError::NothingToApply {
            flid,
            subtype: styp,
            elements: rule.elements.join(", "),
        });
    }
    let missing = |element, position: Option<usize>, needed| MergeError::Missing {
        flid,
        subtype: styp,
        element,
        position: position.map_or_else(String::new, |p| format!("entry {p} ")),
        needed,
    };
    let values = state_from_record(&projected)?;
    let mut reports = Vec::new();
    match rule.effect {
        SetNotClear => {
            if let Some(i) = presences.iter().position(|p| *p == Presence::Empty) {
                return Err(MergeError::CannotClear {
                    flid,
                    subtype: styp,
                    element: rule.elements[i],
                });
            }
        }
        CodeWithRemark if presences[0] == Presence::Absent => {
            return Err(missing("EXSS", None, "EXSC"));
        }
        DoorTimes => {
            for (i, port) in projected.port.items().iter().enumerate() {
                if port.poid.value().is_none() {
                    return Err(missing("PORT", Some(i + 1), "POID"));
                }
            }
        }
        Collection(kind) if collections.of(kind) == Semantics::MergeByKey => {
            let keys = collection_keys(&values, kind);
            if let Some(i) = keys.iter().position(|has| !has) {
                return Err(missing(kind.code(), Some(i + 1), kind.key()));
            }
        }
        PushOnStand => {
            for (i, push) in projected.psht.items().iter().enumerate() {
                if push.pust.value().is_none() {
                    return Err(missing("PSHT", Some(i + 1), "PUST"));
                }
            }
            reports = push_reports(&projected)?;
        }
        TractorOnStand => {
            for (i, tractor) in projected.tipt.items().iter().enumerate() {
                if tractor.trst.value().is_none() {
                    return Err(missing("TIPT", Some(i + 1), "TRST"));
                }
            }
            reports = tractor_reports(&projected);
        }
        _ => {}
    }
    Ok(FlightEvent {
        rule,
        record: projected,
        values,
        reports,
    })
}

/// For each converted entry of `kind`, whether it carries its merge key.
fn collection_keys(values: &FlightState, kind: CollectionKind) -> Vec<bool> {
    match kind {
        C::Gtdt => values
            .gates
            .iter()
            .map(|r| r.source_seq.is_some())
            .collect(),
        C::Ckdt => values
            .counters
            .iter()
            .map(|r| r.source_seq.is_some())
            .collect(),
        C::Cldt => values
            .carousels
            .iter()
            .map(|r| r.source_seq.is_some())
            .collect(),
        C::Psdt => values
            .stands
            .iter()
            .map(|r| r.source_seq.is_some())
            .collect(),
        C::Chdt => values
            .chutes
            .iter()
            .map(|r| r.source_seq.is_some())
            .collect(),
        C::Chot => values
            .chocks
            .iter()
            .map(|r| r.source_seq.is_some())
            .collect(),
        C::Abtm => values
            .bridges
            .iter()
            .map(|r| r.source_seq.is_some())
            .collect(),
        C::Dely => values
            .delays
            .iter()
            .map(|r| r.dely_code.is_some())
            .collect(),
        C::Erut => values
            .entire_route
            .iter()
            .map(|r| r.source_seq.is_some())
            .collect(),
    }
}

/// Applies a prepared event to the flight's current state (`None`: no such
/// flight, so the event creates it from the empty state). Returns the new
/// state, or `None` when the event deletes the flight.
pub fn merge_event(
    current: Option<&FlightState>,
    event: &FlightEvent,
    collections: &CollectionRules,
) -> Option<FlightState> {
    let flid = event.flid();
    let mut next = current.cloned().unwrap_or_else(|| FlightState::new(flid));
    let (record, values) = (&event.record, &event.values);
    if record.ffid.value().is_some() {
        next.fields.ffid.clone_from(&values.fields.ffid);
    }
    let elements = event.rule.elements;
    match event.rule.effect {
        SetOrClear | SetNotClear | EachSetOrClear => {
            for element in elements {
                copy_columns(&mut next.fields, &values.fields, element);
            }
        }
        AllOrNone => {
            let all = elements
                .iter()
                .all(|e| presence(record, e) == Presence::Value);
            let from = if all {
                &values.fields
            } else {
                &FlightFields::default()
            };
            for element in elements {
                copy_columns(&mut next.fields, from, element);
            }
        }
        CodeWithRemark => {
            if presence(record, "EXSC") == Presence::Empty {
                next.fields.exsc = None;
                next.fields.exsr = None;
            } else {
                next.fields.exsc.clone_from(&values.fields.exsc);
                next.fields.exsr.clone_from(&values.fields.exsr);
            }
        }
        DoorTimes => match &record.port {
            Group::Items(ports) => {
                for port in ports {
                    let time = port.potm.value().copied();
                    match port.poid.value() {
                        Some(PortAction::Open) => next.fields.port_open_potm = time,
                        Some(PortAction::Close) => next.fields.port_close_potm = time,
                        None => {}
                    }
                }
            }
            Group::Empty | Group::Absent => {
                next.fields.port_open_potm = None;
                next.fields.port_close_potm = None;
            }
        },
        Collection(kind) => {
            let cleared = presence(record, kind.code()) == Presence::Empty;
            merge_collection(&mut next, values, kind, collections.of(kind), cleared);
        }
        PushOnStand => {
            if record.psht == Group::Empty {
                clear_reports(&mut next.stands, Report::Push);
            } else {
                for report in &event.reports {
                    lay_report(&mut next.stands, report, Report::Push);
                }
            }
        }
        TractorOnStand => {
            if record.tipt == Group::Empty {
                clear_reports(&mut next.stands, Report::Tractor);
            } else {
                for report in &event.reports {
                    lay_report(&mut next.stands, report, Report::Tractor);
                }
            }
        }
        DeleteFlight => return None,
    }
    Some(next)
}

/// Replaces or merges `rows` with `incoming`; `cleared` empties them.
fn merge_rows<T: Clone, K: PartialEq>(
    rows: &mut Vec<T>,
    incoming: &[T],
    semantics: Semantics,
    cleared: bool,
    key: impl Fn(&T) -> K,
) {
    if cleared {
        rows.clear();
        return;
    }
    match semantics {
        Semantics::Replace => *rows = incoming.to_vec(),
        Semantics::MergeByKey => {
            for entry in incoming {
                match rows.iter().position(|r| key(r) == key(entry)) {
                    Some(i) => rows[i] = entry.clone(),
                    None => rows.push(entry.clone()),
                }
            }
        }
    }
}

fn merge_collection(
    next: &mut FlightState,
    values: &FlightState,
    kind: CollectionKind,
    semantics: Semantics,
    cleared: bool,
) {
    let s = semantics;
    match kind {
        C::Gtdt => merge_rows(&mut next.gates, &values.gates, s, cleared, |r| r.source_seq),
        C::Ckdt => merge_rows(&mut next.counters, &values.counters, s, cleared, |r| {
            r.source_seq
        }),
        C::Cldt => merge_rows(&mut next.carousels, &values.carousels, s, cleared, |r| {
            r.source_seq
        }),
        C::Chdt => merge_rows(&mut next.chutes, &values.chutes, s, cleared, |r| {
            r.source_seq
        }),
        C::Chot => merge_rows(&mut next.chocks, &values.chocks, s, cleared, |r| {
            r.source_seq
        }),
        C::Abtm => merge_rows(&mut next.bridges, &values.bridges, s, cleared, |r| {
            r.source_seq
        }),
        C::Dely => merge_rows(&mut next.delays, &values.delays, s, cleared, |r| {
            r.dely_code.clone()
        }),
        C::Erut => merge_rows(
            &mut next.entire_route,
            &values.entire_route,
            s,
            cleared,
            |r| r.source_seq,
        ),
        C::Psdt => {
            // The plan changes; what was reported about a stand (push,
            // tractor) stays with that stand, or on a row of its own.
            let (mut planned, reports) = split_reports(std::mem::take(&mut next.stands));
            merge_rows(&mut planned, &values.stands, s, cleared, |r| r.source_seq);
            for report in &reports {
                lay_report(&mut planned, report, Report::Both);
            }
            next.stands = planned;
        }
    }
}

/// The state an SCHD ADFT record gives the flight. With
/// [`AbsentFields::Clear`] it is the record's own full state (as in a
/// snapshot); with [`AbsentFields::Keep`] every element the record leaves
/// out keeps its stored value, while a sent group replaces its collection
/// and a sent PSHT/TIPT lays its reports onto the stands.
///
/// # Errors
///
/// [`RecordError`](super::from_record::RecordError) when a value does not fit its column.
pub fn merge_adft(
    current: Option<&FlightState>,
    record: &FlightRecord,
    absent: AbsentFields,
) -> Result<FlightState, MergeError> {
    let mut next = state_from_record(record)?;
    let (AbsentFields::Keep, Some(current)) = (absent, current) else {
        return Ok(next);
    };
    for element in SCALAR_ELEMENTS {
        if presence(record, element) == Presence::Absent {
            copy_columns(&mut next.fields, &current.fields, element);
        }
    }
    if record.port.is_absent() {
        next.fields.port_open_potm = current.fields.port_open_potm;
        next.fields.port_close_potm = current.fields.port_close_potm;
    }
    macro_rules! keep_if_absent {
        ($($group:ident => $rows:ident),+) => {
            $( if record.$group.is_absent() { next.$rows.clone_from(&current.$rows); } )+
        };
    }
    keep_if_absent!(
        gtdt => gates, ckdt => counters, cldt => carousels, chdt => chutes,
        chot => chocks, abtm => bridges, dely => delays, rout => route,
        erut => entire_route
    );
    if record.psdt.is_absent() || record.psht.is_absent() || record.tipt.is_absent() {
        // Some of PSDT / PSHT / TIPT are kept: build the stands from the
        // stored ones, as the events of those elements would.
        let mut stands = current.stands.clone();
        if !record.psdt.is_absent() {
            let only_plan = FlightRecord {
                flid: record.flid,
                psdt: record.psdt.clone(),
                ..FlightRecord::default()
            };
            let plan = state_from_record(&only_plan)?;
            let (mut planned, reports) = split_reports(stands);
            merge_rows(
                &mut planned,
                &plan.stands,
                Semantics::Replace,
                record.psdt == Group::Empty,
                |r| r.source_seq,
            );
            for report in &reports {
                lay_report(&mut planned, report, Report::Both);
            }
            stands = planned;
        }
        match &record.psht {
            Group::Absent => {}
            Group::Empty => clear_reports(&mut stands, Report::Push),
            Group::Items(_) => {
                for report in &push_reports(record)? {
                    lay_report(&mut stands, report, Report::Push);
                }
            }
        }
        match &record.tipt {
            Group::Absent => {}
            Group::Empty => clear_reports(&mut stands, Report::Tractor),
            Group::Items(_) => {
                for report in &tractor_reports(record) {
                    lay_report(&mut stands, report, Report::Tractor);
                }
            }
        }
        next.stands = stands;
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FlopSubtype as S;
    use crate::protocol::{Body, ParseOptions, parse_slice};
    use crate::state::{Delay, Gate, RoutePoint};

    fn body(styp: &str, inner: &str) -> FlightRecord {
        let xml = format!(
            "<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20260909080000</DTTM>\
             <TYPE>FLOP</TYPE><STYP>{styp}</STYP></META><FLOP><FLID>7</FLID>{inner}</FLOP></MSG>"
        );
        match parse_slice(xml.as_bytes(), &ParseOptions::default())
            .expect("test message")
            .body
        {
            Body::FlightOperation(op) => op.flights.into_iter().next().expect("one body"),
            other => panic!("not a FLOP: {other:?}"),
        }
    }

    fn apply(
        current: &FlightState,
        subtype: FlopSubtype,
        inner: &str,
    ) -> Result<Option<FlightState>, MergeError> {
        let rules = CollectionRules::default();
        let event = prepare_event(subtype, &body(subtype.code(), inner), &rules)?;
        Ok(merge_event(Some(current), &event, &rules))
    }

    fn applied(current: &FlightState, subtype: FlopSubtype, inner: &str) -> FlightState {
        apply(current, subtype, inner)
            .expect("applies")
            .expect("not deleted")
    }

    fn stored() -> FlightState {
        let mut state = FlightState::new(7);
        state.fields.reno = Some("B1".into());
        state.fields.acft = Some("320".into());
        state.fields.phag = Some(1);
        state.fields.fhag = Some(2);
        state.gates = vec![Gate {
            source_seq: Some(1),
            gate: Some("G1".into()),
            ..Gate::default()
        }];
        state.delays = vec![Delay {
            dely_code: Some("AA".into()),
            dely_dura: Some(5),
            ..Delay::default()
        }];
        state.entire_route = vec![
            RoutePoint {
                source_seq: Some(1),
                apcd: Some("CTU".into()),
                ..RoutePoint::default()
            },
            RoutePoint {
                source_seq: Some(2),
                apcd: Some("PEK".into()),
                ..RoutePoint::default()
            },
        ];
        state.stands = vec![Stand {
            source_seq: Some(1),
            psst: Some("504".into()),
            ..Stand::default()
        }];
        state
    }

    #[test]
    fn every_subtype_has_exactly_one_rule_over_known_elements() {
        for subtype in FlopSubtype::ALL {
            let rows = MERGE_TABLE.iter().filter(|r| r.subtype == *subtype).count();
            assert_eq!(rows, 1, "{subtype:?}");
        }
        assert_eq!(MERGE_TABLE.len(), FlopSubtype::ALL.len());
        let mut scratch = FlightRecord::default();
        for rule in MERGE_TABLE {
            for element in rule.elements {
                assert!(
                    project(&FlightRecord::default(), &mut scratch, element).is_some(),
                    "{element}"
                );
            }
        }
    }

    #[test]
    fn absent_is_refused_and_empty_clears() {
        let got = apply(&stored(), S::Tobt, "");
        assert!(
            matches!(got, Err(MergeError::NothingToApply { .. })),
            "{got:?}"
        );
        let next = applied(&stored(), S::Reno, "<RENO></RENO>");
        assert_eq!(next.fields.reno, None);
        let next = applied(&stored(), S::Reno, "<RENO>B2</RENO><ACFT>999</ACFT>");
        assert_eq!(next.fields.reno.as_deref(), Some("B2"));
        // Elements of other subtypes are ignored.
        assert_eq!(next.fields.acft.as_deref(), Some("320"));
        let got = apply(&stored(), S::Acft, "<ACFT></ACFT>");
        assert!(
            matches!(got, Err(MergeError::CannotClear { .. })),
            "{got:?}"
        );
    }

    #[test]
    fn grouped_scalars_follow_their_rules() {
        let next = applied(&stored(), S::Hnag, "<PHAG>9</PHAG>");
        assert_eq!((next.fields.phag, next.fields.fhag), (Some(9), None));
        let next = applied(&stored(), S::Taop, "<TAOP>CA</TAOP><TAFL>CA1</TAFL>");
        assert_eq!(next.fields.taop, None);
        let next = applied(
            &stored(),
            S::Taop,
            "<TAOP>CA</TAOP><TAFL>CA1</TAFL><TAID>8</TAID>",
        );
        assert_eq!(next.fields.taid, Some(8));
        let got = apply(&stored(), S::Exss, "<EXSR>late</EXSR>");
        assert!(matches!(got, Err(MergeError::Missing { .. })), "{got:?}");
    }

    #[test]
    fn delays_merge_by_code_and_an_empty_group_clears() {
        let next = applied(
            &stored(),
            S::Dely,
            "<DELY CODE=\"BB\" DURA=\"0010\"></DELY><DELY CODE=\"AA\" DURA=\"0100\"></DELY>",
        );
        let codes: Vec<_> = next
            .delays
            .iter()
            .map(|d| (d.dely_code.clone(), d.dely_dura))
            .collect();
        assert_eq!(
            codes,
            vec![(Some("AA".into()), Some(60)), (Some("BB".into()), Some(10))]
        );
        assert!(applied(&next, S::Dely, "<DELY></DELY>").delays.is_empty());
        let got = apply(&stored(), S::Dely, "<DELY DURA=\"0010\">x</DELY>");
        assert!(matches!(got, Err(MergeError::Missing { .. })), "{got:?}");
    }

    #[test]
    fn gates_replace_unless_the_site_merges_them() {
        let inner = "<GTDT GTNO=\"2\"><GATE>G2</GATE></GTDT>";
        let next = applied(&stored(), S::Gtdt, inner);
        assert_eq!(next.gates.len(), 1);
        assert_eq!(next.gates[0].gate.as_deref(), Some("G2"));
        let rules = CollectionRules {
            gtdt: Semantics::MergeByKey,
            ..CollectionRules::default()
        };
        let event = prepare_event(S::Gtdt, &body("GTDT", inner), &rules).expect("valid");
        let next = merge_event(Some(&stored()), &event, &rules).expect("kept");
        assert_eq!(next.gates.len(), 2);
    }

    #[test]
    fn push_lands_on_its_stand_and_survives_a_new_plan() {
        let pushed = applied(
            &stored(),
            S::Psht,
            "<PSHT PSHN=\"1\"><PSTM>09SEP260810</PSTM><PSID>IN</PSID><PUST>504</PUST></PSHT>",
        );
        assert_eq!(pushed.stands.len(), 1);
        assert_eq!(pushed.stands[0].psid.as_deref(), Some("IN"));
        // A new plan without 504 keeps the push on a row of its own.
        let replanned = applied(&pushed, S::Psdt, "<PSDT PSNO=\"1\"><PSST>506</PSST></PSDT>");
        assert_eq!(replanned.stands.len(), 2);
        assert_eq!(replanned.stands[1].psst.as_deref(), Some("504"));
        assert!(replanned.stands[1].pstm.is_some());
        // Undoing the push removes that row again.
        let undone = applied(&replanned, S::Psht, "<PSHT><PUST>504</PUST></PSHT>");
        assert_eq!(undone.stands.len(), 1);
        let cleared = applied(&pushed, S::Psht, "<PSHT></PSHT>");
        assert_eq!(cleared.stands, stored().stands);
    }

    #[test]
    fn fdel_deletes_and_an_unknown_flight_is_created() {
        assert_eq!(apply(&stored(), S::Fdel, "<FDEL></FDEL>"), Ok(None));
        let rules = CollectionRules::default();
        let event =
            prepare_event(S::Reno, &body("RENO", "<RENO>B9</RENO>"), &rules).expect("valid");
        let created = merge_event(None, &event, &rules).expect("created");
        assert_eq!(created.flid, 7);
        assert_eq!(created.fields.reno.as_deref(), Some("B9"));
    }

    #[test]
    fn adft_keep_keeps_only_what_is_absent() {
        let record = body("RENO", "<RENO>B5</RENO><GTDT></GTDT>");
        let next = merge_adft(Some(&stored()), &record, AbsentFields::Keep).expect("fits");
        assert_eq!(next.fields.reno.as_deref(), Some("B5"));
        assert_eq!(next.fields.acft.as_deref(), Some("320"));
        assert!(next.gates.is_empty());
        assert_eq!(next.delays, stored().delays);
        assert_eq!(next.stands, stored().stands);
        let next = merge_adft(Some(&stored()), &record, AbsentFields::Clear).expect("fits");
        assert_eq!(next.fields.acft, None);
        assert!(next.delays.is_empty());
    }
}
