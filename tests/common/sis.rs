//! SIS messages built for tests (the project's own, never the peer samples),
//! and the state database read back for comparison.

use std::collections::BTreeMap;

use chrono::{NaiveDate, NaiveDateTime};
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::protocol::{
    Body, Field, FlightIndicator, FlightRecord, GateAllocation, Group, Message, Meta, Movement,
    ParseOptions, RoutePoint, Schedule, ScheduleSubtype, to_xml, to_xml_with,
};
use flightstate::synth::{DayOptions, airport_day};

/// The explicit operation-day element the tests' site configures.
pub const DAY_ELEMENT: &str = "OPDY";

/// Parse options of the tests' site.
pub fn parse_options() -> ParseOptions {
    ParseOptions {
        operation_day_element: Some(DAY_ELEMENT.to_owned()),
        ..ParseOptions::default()
    }
}

/// The pipeline settings of the tests' site.
pub fn site_settings() -> flightstate::pipeline::Rules {
    flightstate::pipeline::Rules {
        parse: parse_options(),
        ..flightstate::pipeline::Rules::default()
    }
}

/// A local time `2026-09-DD HH:MM`.
pub fn at(day: u32, hour: u32, minute: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2026, 9, day)
        .and_then(|d| d.and_hms_opt(hour, minute, 0))
        .expect("valid test time")
}

/// A day of September 2026.
pub fn sep(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 9, day).expect("valid test day")
}

/// A departure with every mandatory element, a gate and an entire route.
pub fn flight(flid: i64, sodt: NaiveDateTime) -> FlightRecord {
    FlightRecord {
        flid,
        alcd: Field::Value("CA".into()),
        flno: Field::Value(format!("CA{}", 1000 + flid % 9000)),
        mvin: Field::Value(Movement::Departure),
        sodt: Field::Value(sodt),
        flty: Field::Value('W'),
        flin: Field::Value(FlightIndicator::Domestic),
        acft: Field::Value("320".into()),
        reno: Field::Value(format!("B{:04}", flid % 10_000)),
        gtdt: Group::Items(vec![GateAllocation {
            gtno: Field::Value(1),
            gate: Field::Value(format!("G{}", flid % 40)),
            pgot: Field::Value(sodt - chrono::Duration::minutes(50)),
            pgct: Field::Value(sodt - chrono::Duration::minutes(15)),
            ..GateAllocation::default()
        }]),
        erut: Group::Items(vec![
            RoutePoint {
                rtno: Field::Value(1),
                apcd: Field::Value("CTU".into()),
                scdt: Field::Value(sodt),
                ..RoutePoint::default()
            },
            RoutePoint {
                rtno: Field::Value(2),
                apcd: Field::Value("PEK".into()),
                scat: Field::Value(sodt + chrono::Duration::minutes(150)),
                ..RoutePoint::default()
            },
        ]),
        ..FlightRecord::default()
    }
}

/// An SCHD of `subtype` whose RECS is `recs`.
pub fn schedule_message(
    subtype: ScheduleSubtype,
    day: Option<NaiveDate>,
    recs: Field<u32>,
    flights: Vec<FlightRecord>,
) -> Vec<u8> {
    let message = Message {
        meta: Meta {
            sndr: "AODB".into(),
            seqn: "1".into(),
            dttm: at(9, 3, 0),
            msg_type: "SCHD".into(),
            styp: subtype.code().into(),
            unknown: Vec::new(),
        },
        body: Body::Schedule(Schedule {
            subtype,
            recs,
            operation_day: day,
            flights,
            unknown: Vec::new(),
        }),
        unknown: Vec::new(),
    };
    to_xml_with(&message, &parse_options()).into_bytes()
}

/// A FLOP message of `styp` with one body per `(flid, inner)`.
pub fn flop(styp: &str, bodies: &[(i64, &str)]) -> Vec<u8> {
    let bodies: String = bodies
        .iter()
        .map(|(flid, inner)| format!("<FLOP><FLID>{flid}</FLID>{inner}</FLOP>"))
        .collect();
    format!(
        "<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20260909080000</DTTM>\
         <TYPE>FLOP</TYPE><STYP>{styp}</STYP></META>{bodies}</MSG>"
    )
    .into_bytes()
}

/// A DNLD of `day` (named explicitly) with RECS matching its flights.
pub fn snapshot(day: NaiveDate, flights: Vec<FlightRecord>) -> Vec<u8> {
    let recs = Field::Value(u32::try_from(flights.len()).expect("test size"));
    schedule_message(ScheduleSubtype::Dnld, Some(day), recs, flights)
}

/// A generated airport day of `flights` flights as message bodies: the
/// snapshot, then every event of the day.
pub fn day_messages(flights: usize) -> Vec<Vec<u8>> {
    let day = airport_day(&DayOptions {
        flights,
        ..DayOptions::default()
    });
    std::iter::once(&day.snapshot)
        .chain(&day.events)
        .map(|m| to_xml(m).into_bytes())
        .collect()
}

fn meta(sender: &str, seqn: &str, dttm: NaiveDateTime, msg_type: &str, styp: &str) -> Meta {
    Meta {
        sndr: sender.into(),
        seqn: seqn.into(),
        dttm,
        msg_type: msg_type.into(),
        styp: styp.into(),
        unknown: Vec::new(),
    }
}

/// A DNLD of `day` with `flids` (AODB's), sent at `dttm` with `seqn`: for the
/// evidence of the upstream's order and SEQN.
pub fn snapshot_sent(day: NaiveDate, flids: &[i64], seqn: &str, dttm: NaiveDateTime) -> Vec<u8> {
    let flights: Vec<FlightRecord> = flids.iter().map(|f| flight(*f, at(9, 8, 0))).collect();
    let message = Message {
        meta: meta("AODB", seqn, dttm, "SCHD", "DNLD"),
        body: Body::Schedule(Schedule {
            subtype: ScheduleSubtype::Dnld,
            recs: Field::Value(u32::try_from(flights.len()).expect("test size")),
            operation_day: Some(day),
            flights,
            unknown: Vec::new(),
        }),
        unknown: Vec::new(),
    };
    to_xml_with(&message, &parse_options()).into_bytes()
}

/// A FLOP RENO for `flid` from `sender`, sent at `dttm` with `seqn`.
pub fn flop_sent(sender: &str, seqn: &str, dttm: NaiveDateTime, flid: i64) -> Vec<u8> {
    format!(
        "<MSG><META><SNDR>{sender}</SNDR><SEQN>{seqn}</SEQN><DTTM>{}</DTTM>\
         <TYPE>FLOP</TYPE><STYP>RENO</STYP></META>\
         <FLOP><FLID>{flid}</FLID><RENO>R{seqn}</RENO></FLOP></MSG>",
        dttm.format("%Y%m%d%H%M%S")
    )
    .into_bytes()
}

/// A message flightstate does not apply (reference data), from `sender`.
pub fn unsupported_sent(sender: &str, seqn: &str, dttm: NaiveDateTime) -> Vec<u8> {
    format!(
        "<MSG><META><SNDR>{sender}</SNDR><SEQN>{seqn}</SEQN><DTTM>{}</DTTM>\
         <TYPE>AIRL</TYPE><STYP>DNLD</STYP></META><AIRL><X>1</X></AIRL></MSG>",
        dttm.format("%Y%m%d%H%M%S")
    )
    .into_bytes()
}

#[derive(QueryableByName)]
struct Dump {
    #[diesel(sql_type = Text)]
    dump: String,
}

/// Every table of the state database as JSON text, one line per table, rows
/// in key order: equal dumps mean the database did not change.
pub fn dump_database(conn: &mut PgConnection) -> String {
    super::dialects::DUMPED_TABLES
        .iter()
        .map(|(table, order)| {
            // Test-only SQL: table names are constants of this list.
            let query = format!(
                "SELECT '{table}: ' || COALESCE(jsonb_agg(to_jsonb(t) ORDER BY {order})::text, '[]') AS dump FROM {table} t"
            );
            diesel::sql_query(query)
                .get_result::<Dump>(conn)
                .expect("dump a table")
                .dump
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(QueryableByName)]
struct DocumentRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Nullable<Text>)]
    state_document: Option<String>,
}

/// `FLIGHT_SCHD.STATE_DOCUMENT` of every flight, by FLID, as JSON values.
///
/// # Panics
///
/// When a flight has no stored document, or one that is not JSON.
pub fn state_documents(conn: &mut PgConnection) -> BTreeMap<i64, serde_json::Value> {
    diesel::sql_query("SELECT flid, state_document FROM flight_schd ORDER BY flid")
        .load::<DocumentRow>(conn)
        .expect("read the state documents")
        .into_iter()
        .map(|r| {
            let text = r
                .state_document
                .unwrap_or_else(|| panic!("flight {}: no state document", r.flid));
            let doc = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("flight {}: a state document not JSON ({e})", r.flid));
            (r.flid, doc)
        })
        .collect()
}

/// A count of `table`'s rows matching the test-only `condition`.
pub fn count(conn: &mut PgConnection, table: &str, condition: &str) -> i64 {
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    diesel::sql_query(format!(
        "SELECT count(*) AS n FROM {table} WHERE {condition}"
    ))
    .get_result::<Count>(conn)
    .expect("count rows")
    .n
}

#[derive(QueryableByName)]
struct Reno {
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    reno: Option<String>,
}

/// The stored registration (`RENO`) of flight `flid`.
pub fn reno(conn: &mut PgConnection, flid: i64) -> Option<String> {
    diesel::sql_query("SELECT reno FROM flight_schd WHERE flid = $1")
        .bind::<diesel::sql_types::BigInt, _>(flid)
        .get_result::<Reno>(conn)
        .expect("flight row")
        .reno
}
