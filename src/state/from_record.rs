//! A flight's full state from one SIS flight record, with snapshot meaning:
//! whatever the record does not carry is "no such data" (DESIGN §4: absent
//! optional fields and collections clear the stored value).
//!
//! The same conversion gives an FLOP's values before the merge rules decide
//! which of them apply.

use chrono::NaiveDateTime;

use super::columns::TooLong;
use super::flight::{
    Bridge, Carousel, Chock, Chute, Counter, Delay, FlightFields, FlightState, Gate, RoutePoint,
    Stand,
};
use crate::protocol::{self, Field, FlightRecord, Group, PortAction};

/// Why a record cannot become a stored state; the message is bad input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// A text value is longer than its column.
    #[error("FLID {flid}: {source}")]
    TooLong {
        /// The flight.
        flid: i64,
        /// Which column and how long.
        #[source]
        source: TooLong,
    },
    /// A number is larger than its column holds.
    #[error("FLID {flid}: {element} = {value} is out of range (at most {max})")]
    OutOfRange {
        /// The flight.
        flid: i64,
        /// The SIS element.
        element: &'static str,
        /// The value sent.
        value: String,
        /// The largest value the column takes.
        max: String,
    },
}

/// The full state that `record` describes on its own.
///
/// PSHT and TIPT are stored on the planned stand whose `PSST` they name; a
/// push or tractor report for a stand that no PSDT plans gets a stand row of
/// its own (PSST = the reported stand, no PSNO), so that it is never lost.
/// Of several PORT events of one kind, the last one sent is kept.
///
/// # Errors
///
/// [`RecordError`] when a value does not fit its column.
pub fn state_from_record(record: &FlightRecord) -> Result<FlightState, RecordError> {
    let flid = record.flid;
    let count = |element, field: &Field<u32>| to_count(flid, element, field);
    let mut fields = FlightFields {
        alcd: text(&record.alcd),
        alsc: text(&record.alsc),
        flno: text(&record.flno),
        mvin: value(&record.mvin).map(|m| m.code().to_owned()),
        sodt: time(&record.sodt),
        flty: value(&record.flty).map(|c| c.to_string()),
        flin: value(&record.flin).map(|f| f.code().to_owned()),
        acft: text(&record.acft),
        reno: text(&record.reno),
        taop: text(&record.taop),
        tafl: text(&record.tafl),
        taid: value(&record.taid).copied(),
        trml: text(&record.trml),
        maxp: count("MAXP", &record.maxp)?,
        csop: text(&record.csop),
        csft: text(&record.csft),
        maid: value(&record.maid).copied(),
        estt: time(&record.estt),
        actt: time(&record.actt),
        stnd: text(&record.stnd),
        phag: value(&record.phag).map(|v| i64::from(*v)),
        fhag: value(&record.fhag).map(|v| i64::from(*v)),
        mhag: value(&record.mhag).map(|v| i64::from(*v)),
        cncl: time(&record.cncl),
        remc: text(&record.remc),
        botm: time(&record.botm),
        lacl: time(&record.lacl),
        fint: time(&record.fint),
        appt: time(&record.appt),
        egsr: time(&record.egsr),
        egst: time(&record.egst),
        vipp: count("VIPP", &record.vipp)?,
        vipr: value(&record.vipr).map(|v| i32::from(*v)),
        lbno: count("LBNO", &record.lbno)?,
        lbwt: weight(flid, &record.lbwt)?,
        paxc: count("PAXC", &record.paxc)?,
        exsc: text(&record.exsc),
        exsr: text(&record.exsr),
        ftss: text(&record.ftss),
        pedt: time(&record.pedt),
        neat: time(&record.neat),
        padt: time(&record.padt),
        naat: time(&record.naat),
        cobt: time(&record.cobt),
        tobt: time(&record.tobt),
        eobt: time(&record.eobt),
        iest: time(&record.iest),
        ctot: time(&record.ctot),
        runw: text(&record.runw),
        ffid: text(&record.ffid),
        fdiv_ddes: value(&record.fdiv).map(|d| d.ddes.clone()),
        fdiv_ddir: value(&record.fdiv).map(|d| d.ddir.code().to_owned()),
        fdiv: value(&record.fdiv).and_then(|d| non_empty(&d.text)),
        fret_reid: value(&record.fret).map(|r| r.reid.code().to_owned()),
        fret: value(&record.fret).and_then(|r| non_empty(&r.text)),
        flab_ares: value(&record.flab).map(|a| a.ares.code().to_owned()),
        flab: value(&record.flab).and_then(|a| non_empty(&a.text)),
        port_open_potm: None,
        port_close_potm: None,
    };
    for port in record.port.items() {
        match value(&port.poid) {
            Some(PortAction::Open) => fields.port_open_potm = time(&port.potm),
            Some(PortAction::Close) => fields.port_close_potm = time(&port.potm),
            None => {}
        }
    }
    let state = FlightState {
        flid,
        fields,
        gates: gates(flid, &record.gtdt)?,
        counters: counters(flid, &record.ckdt)?,
        carousels: carousels(flid, &record.cldt)?,
        stands: stands(flid, record)?,
        chutes: chutes(flid, &record.chdt)?,
        delays: delays(flid, &record.dely)?,
        bridges: bridges(flid, &record.abtm)?,
        chocks: chocks(flid, &record.chot)?,
        route: route(flid, &record.rout)?,
        entire_route: route(flid, &record.erut)?,
    };
    check_lengths(&state).map_err(|source| RecordError::TooLong { flid, source })?;
    Ok(state)
}

/// Every text value of `state` against its column.
fn check_lengths(state: &FlightState) -> Result<(), TooLong> {
    state.fields.check_lengths()?;
    state.gates.iter().try_for_each(Gate::check_lengths)?;
    state.counters.iter().try_for_each(Counter::check_lengths)?;
    state
        .carousels
        .iter()
        .try_for_each(Carousel::check_lengths)?;
    state.stands.iter().try_for_each(Stand::check_lengths)?;
    state.chutes.iter().try_for_each(Chute::check_lengths)?;
    state.delays.iter().try_for_each(Delay::check_lengths)?;
    state.bridges.iter().try_for_each(Bridge::check_lengths)?;
    state.chocks.iter().try_for_each(Chock::check_lengths)?;
    state.route.iter().try_for_each(RoutePoint::check_lengths)?;
    state
        .entire_route
        .iter()
        .try_for_each(RoutePoint::check_lengths)
}

fn value<T>(field: &Field<T>) -> Option<&T> {
    field.value()
}

fn text(field: &Field<String>) -> Option<String> {
    field.value().cloned()
}

fn time(field: &Field<NaiveDateTime>) -> Option<NaiveDateTime> {
    field.value().copied()
}

fn letter(field: &Field<char>) -> Option<String> {
    field.value().map(char::to_string)
}

fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

fn to_count(
    flid: i64,
    element: &'static str,
    field: &Field<u32>,
) -> Result<Option<i32>, RecordError> {
    field
        .value()
        .map(|v| {
            i32::try_from(*v).map_err(|_| RecordError::OutOfRange {
                flid,
                element,
                value: v.to_string(),
                max: i32::MAX.to_string(),
            })
        })
        .transpose()
}

/// `LBWT` is `NUMERIC(11,2)`: kept as its two-decimal text.
fn weight(flid: i64, field: &Field<f64>) -> Result<Option<String>, RecordError> {
    const MAX: f64 = 999_999_999.99;
    match field.value() {
        None => Ok(None),
        Some(v) if v.is_finite() && (0.0..=MAX).contains(v) => Ok(Some(format!("{v:.2}"))),
        Some(v) => Err(RecordError::OutOfRange {
            flid,
            element: "LBWT",
            value: v.to_string(),
            max: format!("{MAX:.2}"),
        }),
    }
}

fn seq(flid: i64, element: &'static str, field: &Field<u32>) -> Result<Option<i32>, RecordError> {
    to_count(flid, element, field)
}

fn gates(flid: i64, group: &Group<protocol::GateAllocation>) -> Result<Vec<Gate>, RecordError> {
    group
        .items()
        .iter()
        .map(|g| {
            Ok(Gate {
                source_seq: seq(flid, "GTNO", &g.gtno)?,
                gate: text(&g.gate),
                pgot: time(&g.pgot),
                pgct: time(&g.pgct),
                gotm: time(&g.gotm),
                gctm: time(&g.gctm),
                gtyp: letter(&g.gtyp),
            })
        })
        .collect()
}

fn counters(
    flid: i64,
    group: &Group<protocol::CounterAllocation>,
) -> Result<Vec<Counter>, RecordError> {
    group
        .items()
        .iter()
        .map(|c| {
            Ok(Counter {
                source_seq: seq(flid, "CKNO", &c.ckno)?,
                chkc: text(&c.chkc),
                ccls: letter(&c.ccls),
                pcot: time(&c.pcot),
                pcct: time(&c.pcct),
                cotm: time(&c.cotm),
                cctm: time(&c.cctm),
                ctyp: letter(&c.ctyp),
            })
        })
        .collect()
}

fn carousels(
    flid: i64,
    group: &Group<protocol::CarouselAllocation>,
) -> Result<Vec<Carousel>, RecordError> {
    group
        .items()
        .iter()
        .map(|c| {
            Ok(Carousel {
                source_seq: seq(flid, "CLNO", &c.clno)?,
                belt: text(&c.belt),
                bcls: letter(&c.bcls),
                pcot: time(&c.pcot),
                pcct: time(&c.pcct),
                fbag: time(&c.fbag),
                lbag: time(&c.lbag),
                btyp: letter(&c.btyp),
            })
        })
        .collect()
}

/// PSDT rows, then PSHT and TIPT laid onto them (see [`state_from_record`]).
fn stands(flid: i64, record: &FlightRecord) -> Result<Vec<Stand>, RecordError> {
    let mut stands = record
        .psdt
        .items()
        .iter()
        .map(|s| {
            Ok(Stand {
                source_seq: seq(flid, "PSNO", &s.psno)?,
                psst: text(&s.psst),
                stst: time(&s.stst),
                stet: time(&s.stet),
                ..Stand::default()
            })
        })
        .collect::<Result<Vec<_>, RecordError>>()?;
    for push in record.psht.items() {
        let stand = stand_for(&mut stands, text(&push.pust));
        stand.pshn = seq(flid, "PSHN", &push.pshn)?;
        stand.pstm = time(&push.pstm);
        stand.psid = text(&push.psid);
    }
    for tractor in record.tipt.items() {
        stand_for(&mut stands, text(&tractor.trst)).trtm = time(&tractor.trtm);
    }
    Ok(stands)
}

/// The planned stand named `psst`, or a new row for it.
fn stand_for(stands: &mut Vec<Stand>, psst: Option<String>) -> &mut Stand {
    let index = match stands.iter().position(|s| s.psst == psst) {
        Some(index) => index,
        None => {
            stands.push(Stand {
                psst,
                ..Stand::default()
            });
            stands.len() - 1
        }
    };
    &mut stands[index]
}

fn chutes(flid: i64, group: &Group<protocol::ChuteAllocation>) -> Result<Vec<Chute>, RecordError> {
    group
        .items()
        .iter()
        .map(|c| {
            Ok(Chute {
                source_seq: seq(flid, "CHNO", &c.chno)?,
                chut: text(&c.chut),
                ccls: letter(&c.ccls),
                pcbt: time(&c.pcbt),
                pcet: time(&c.pcet),
                cbtm: time(&c.cbtm),
                cetm: time(&c.cetm),
                ctyp: letter(&c.ctyp),
            })
        })
        .collect()
}

fn delays(flid: i64, group: &Group<protocol::Delay>) -> Result<Vec<Delay>, RecordError> {
    group
        .items()
        .iter()
        .map(|d| {
            let dura = match d.dura.value() {
                Some(minutes) => {
                    Some(
                        i32::try_from(minutes.0).map_err(|_| RecordError::OutOfRange {
                            flid,
                            element: "DELY/@DURA",
                            value: minutes.0.to_string(),
                            max: i32::MAX.to_string(),
                        })?,
                    )
                }
                None => None,
            };
            Ok(Delay {
                source_seq: None,
                dely_code: text(&d.code),
                dely_strt: time(&d.strt),
                dely_dura: dura,
                dely: non_empty(&d.text),
            })
        })
        .collect()
}

fn bridges(flid: i64, group: &Group<protocol::BridgeEvent>) -> Result<Vec<Bridge>, RecordError> {
    group
        .items()
        .iter()
        .map(|b| {
            Ok(Bridge {
                source_seq: seq(flid, "ASNO", &b.asno)?,
                abdg: text(&b.abdg),
                abop: letter(&b.abop),
                aotm: time(&b.aotm),
            })
        })
        .collect()
}

fn chocks(flid: i64, group: &Group<protocol::ChockEvent>) -> Result<Vec<Chock>, RecordError> {
    group
        .items()
        .iter()
        .map(|c| {
            Ok(Chock {
                source_seq: seq(flid, "CSNO", &c.csno)?,
                chtm: time(&c.chtm),
                chid: value(&c.chid).map(|s| s.code().to_owned()),
                chst: text(&c.chst),
            })
        })
        .collect()
}

fn route(flid: i64, group: &Group<protocol::RoutePoint>) -> Result<Vec<RoutePoint>, RecordError> {
    group
        .items()
        .iter()
        .map(|r| {
            Ok(RoutePoint {
                source_seq: seq(flid, "RTNO", &r.rtno)?,
                apcd: text(&r.apcd),
                scat: time(&r.scat),
                scdt: time(&r.scdt),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Body, ParseOptions, parse_slice};

    fn record(xml: &str) -> FlightRecord {
        let message = parse_slice(xml.as_bytes(), &ParseOptions::default()).expect("test message");
        match message.body {
            Body::FlightOperation(op) => op.flights.into_iter().next().expect("one FLOP"),
            other => panic!("not a FLOP: {other:?}"),
        }
    }

    fn flop(styp: &str, body: &str) -> String {
        format!(
            "<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20260909080000</DTTM>\
             <TYPE>FLOP</TYPE><STYP>{styp}</STYP></META><FLOP><FLID>7</FLID>{body}</FLOP></MSG>"
        )
    }

    #[test]
    fn push_and_tractor_land_on_their_planned_stand() {
        let state = state_from_record(&record(&flop(
            "PSHT",
            "<PSDT PSNO=\"1\"><PSST>504</PSST></PSDT><PSDT PSNO=\"2\"><PSST>506</PSST></PSDT>\
             <PSHT PSHN=\"1\"><PSTM>09SEP260810</PSTM><PSID>IN</PSID><PUST>506</PUST></PSHT>\
             <TIPT><TRTM>09SEP260805</TRTM><TRST>999</TRST></TIPT>",
        )))
        .expect("fits");
        assert_eq!(state.stands.len(), 3);
        assert_eq!(state.stands[1].psid.as_deref(), Some("IN"));
        assert_eq!(state.stands[1].pshn, Some(1));
        assert!(state.stands[0].pstm.is_none());
        // A tractor for an unplanned stand is kept on a row of its own.
        assert_eq!(state.stands[2].psst.as_deref(), Some("999"));
        assert!(state.stands[2].trtm.is_some());
        assert_eq!(state.stands[2].source_seq, None);
    }

    #[test]
    fn irregularities_and_ports_become_columns() {
        let state = state_from_record(&record(&flop(
            "FDIV",
            "<FDIV DDES=\"HKG\" DDIR=\"TO\">weather</FDIV><FRET REID=\"A\"></FRET>\
             <PORT><POTM>09SEP260700</POTM><POID>O</POID></PORT>\
             <PORT><POTM>09SEP260730</POTM><POID>C</POID></PORT><LBWT>12.5</LBWT>",
        )))
        .expect("fits");
        assert_eq!(state.fields.fdiv_ddes.as_deref(), Some("HKG"));
        assert_eq!(state.fields.fdiv_ddir.as_deref(), Some("TO"));
        assert_eq!(state.fields.fdiv.as_deref(), Some("weather"));
        assert_eq!(state.fields.fret_reid.as_deref(), Some("A"));
        assert_eq!(state.fields.fret, None);
        assert!(state.fields.port_open_potm.is_some() && state.fields.port_close_potm.is_some());
        assert_eq!(state.fields.lbwt.as_deref(), Some("12.50"));
    }

    #[test]
    fn a_value_longer_than_its_column_is_refused() {
        let long = "X".repeat(17);
        let got = state_from_record(&record(&flop("RENO", &format!("<RENO>{long}</RENO>"))));
        assert_eq!(
            got,
            Err(RecordError::TooLong {
                flid: 7,
                source: TooLong {
                    column: "reno",
                    max: 16,
                    len: 17
                }
            })
        );
    }
}
