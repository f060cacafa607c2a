//! The synthetic airport day (`flightstate::synth`) and `flightstate generate`: every
//! generated message is one the parser reads back equal, the snapshot is a sound operation
//! day, the events refer to its flights, and the same options give the same bytes.
//! No database or broker is needed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use flightstate::protocol::{
    Body, Field, FlightRecord, FlopSubtype, Message, ParseOptions, Schedule, ScheduleSubtype,
    parse_slice, parse_slice_handing, to_xml,
};
use flightstate::synth::{DayOptions, Moment, SyntheticDay, airport_day, detail_rows, snapshot_of};

fn day(seed: u64, flights: usize) -> DayOptions {
    DayOptions {
        seed,
        day: NaiveDate::from_ymd_opt(2025, 3, 14).expect("a real date"),
        flights,
        ..DayOptions::default()
    }
}

/// Big enough for a closing snapshot of 9,999 flights.
fn roomy() -> ParseOptions {
    ParseOptions {
        max_bytes: 64 * 1024 * 1024,
        ..ParseOptions::default()
    }
}

fn schedule(message: &Message) -> &Schedule {
    match &message.body {
        Body::Schedule(schedule) => schedule,
        other => panic!("expected an SCHD body, got {other:?}"),
    }
}

fn all_messages(day: &SyntheticDay) -> impl Iterator<Item = &Message> {
    std::iter::once(&day.snapshot).chain(day.events.iter())
}

/// The ad-hoc flights' records, from the SCHD ADFT events.
fn ad_hoc_flights(day: &SyntheticDay) -> Vec<&FlightRecord> {
    day.events
        .iter()
        .filter_map(|m| match &m.body {
            Body::Schedule(s) if s.subtype == ScheduleSubtype::Adft => Some(&s.flights),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn every_message_round_trips_through_the_parser() {
    for seed in [1, 2] {
        let generated = airport_day(&day(seed, 300));
        let mut count = 0;
        for message in all_messages(&generated) {
            let xml = to_xml(message);
            let parsed = parse_slice(xml.as_bytes(), &roomy())
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{xml}"));
            assert_eq!(&parsed, message, "seed {seed}:\n{xml}");
            count += 1;
        }
        assert!(count > 300, "seed {seed}: only {count} messages");
    }
}

#[test]
fn snapshot_counts_its_records_and_each_has_the_mandatory_elements() {
    let generated = airport_day(&day(1, 300));
    let snapshot = schedule(&generated.snapshot);
    assert_eq!(generated.snapshot.meta.msg_type, "SCHD");
    assert_eq!(generated.snapshot.meta.styp, "DNLD");
    assert_eq!(snapshot.flights.len(), 300);
    assert_eq!(snapshot.recs, Field::Value(300));
    for record in snapshot.flights.iter().chain(ad_hoc_flights(&generated)) {
        let flid = record.flid;
        assert!(record.alcd.value().is_some(), "{flid}: ALCD");
        assert!(record.flno.value().is_some(), "{flid}: FLNO");
        assert!(record.mvin.value().is_some(), "{flid}: MVIN");
        assert!(record.sodt.value().is_some(), "{flid}: SODT");
        assert!(record.flty.value().is_some(), "{flid}: FLTY");
        assert!(record.flin.value().is_some(), "{flid}: FLIN");
        assert!(record.acft.value().is_some(), "{flid}: ACFT");
    }
}

#[test]
fn every_scheduled_time_falls_in_the_operation_day() {
    let options = day(3, 300);
    let generated = airport_day(&options);
    let start = options.day.and_time(NaiveTime::MIN);
    let end = start + chrono::Duration::days(1);
    let flights = schedule(&generated.snapshot).flights.iter();
    for record in flights.chain(ad_hoc_flights(&generated)) {
        let sodt = *record.sodt.value().expect("SODT");
        assert!((start..end).contains(&sodt), "{}: SODT {sodt}", record.flid);
    }
}

#[test]
fn flids_are_unique_and_every_flop_names_a_known_flight() {
    let generated = airport_day(&day(1, 300));
    let snapshot = schedule(&generated.snapshot);
    let mut known = BTreeSet::new();
    for record in &snapshot.flights {
        assert!(known.insert(record.flid), "FLID {} twice", record.flid);
    }
    let mut announced = BTreeSet::new();
    for message in &generated.events {
        match &message.body {
            Body::Schedule(s) => {
                assert_eq!(s.subtype, ScheduleSubtype::Adft);
                assert_eq!(s.recs, Field::Value(s.flights.len() as u32));
                for record in &s.flights {
                    assert!(!known.contains(&record.flid), "ADFT reuses {}", record.flid);
                    announced.insert(record.flid);
                }
            }
            Body::FlightOperation(op) => {
                assert_eq!(op.flights.len(), 1);
                let record = &op.flights[0];
                assert!(
                    known.contains(&record.flid) || announced.contains(&record.flid),
                    "FLOP {} about unknown (or not yet announced) FLID {}",
                    op.subtype.code(),
                    record.flid
                );
                let ffid = record.ffid.value().expect("every FLOP carries FFID");
                assert_eq!(ffid.split('-').count(), 5, "{ffid}");
            }
            Body::Unsupported { .. } => panic!("unsupported message generated"),
        }
    }
    assert_eq!(announced.len(), 2, "two ad-hoc flights");
}

#[test]
fn events_are_in_time_order_after_the_snapshot() {
    let generated = airport_day(&day(2, 300));
    let mut last: NaiveDateTime = generated.snapshot.meta.dttm;
    let mut seqn = generated.snapshot.meta.seqn.parse::<u64>().expect("SEQN");
    for message in &generated.events {
        assert!(
            message.meta.dttm >= last,
            "{} after {last}",
            message.meta.dttm
        );
        last = message.meta.dttm;
        let next = message.meta.seqn.parse::<u64>().expect("SEQN");
        assert_eq!(next, seqn + 1);
        seqn = next;
    }
}

#[test]
fn turnarounds_link_both_ways_with_one_registration() {
    let generated = airport_day(&day(1, 300));
    let snapshot = schedule(&generated.snapshot);
    let by_flid: BTreeMap<i64, &FlightRecord> =
        snapshot.flights.iter().map(|r| (r.flid, r)).collect();
    let mut linked = 0;
    for record in &snapshot.flights {
        let erut: Vec<&str> = record
            .erut
            .items()
            .iter()
            .filter_map(|p| p.apcd.value().map(String::as_str))
            .collect();
        assert!(erut.contains(&"CTU"), "{}: ERUT {erut:?}", record.flid);
        let Some(taid) = record.taid.value() else {
            continue;
        };
        let other = by_flid.get(taid).expect("TAID is a flight of the day");
        assert_eq!(other.taid.value(), Some(&record.flid));
        assert_eq!(other.reno, record.reno);
        assert_ne!(other.mvin, record.mvin);
        assert_eq!(record.tafl, other.flno);
        linked += 1;
    }
    assert!(linked > 150, "only {linked} linked flights of 300");
}

#[test]
fn a_day_uses_many_flop_subtypes() {
    let generated = airport_day(&day(1, 600));
    let mut subtypes: BTreeMap<&str, usize> = BTreeMap::new();
    for message in &generated.events {
        *subtypes.entry(message.meta.styp.as_str()).or_default() += 1;
    }
    println!(
        "600 flights: {} events {subtypes:?}",
        generated.events.len()
    );
    for wanted in [
        FlopSubtype::Stnd,
        FlopSubtype::Gtdt,
        FlopSubtype::Eobt,
        FlopSubtype::Tobt,
        FlopSubtype::Cobt,
        FlopSubtype::Botm,
        FlopSubtype::Lacl,
        FlopSubtype::Fint,
        FlopSubtype::Chot,
        FlopSubtype::Abtm,
        FlopSubtype::Psht,
        FlopSubtype::Dely,
        FlopSubtype::Cncl,
        FlopSubtype::Fdel,
        FlopSubtype::Reno,
        FlopSubtype::Acft,
        FlopSubtype::Remc,
        FlopSubtype::Exss,
        FlopSubtype::Fdiv,
        FlopSubtype::Flab,
        FlopSubtype::Fret,
    ] {
        assert!(
            subtypes.contains_key(wanted.code()),
            "no {} in {subtypes:?}",
            wanted.code()
        );
    }
    assert_eq!(subtypes.get("ADFT"), Some(&2));
}

#[test]
fn pushbacks_match_a_planned_stand() {
    let generated = airport_day(&day(4, 300));
    let mut stands: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
    let record_stands = |stands: &mut BTreeMap<i64, BTreeSet<String>>, r: &FlightRecord| {
        let entry = stands.entry(r.flid).or_default();
        for p in r.psdt.items() {
            entry.extend(p.psst.value().cloned());
        }
    };
    for r in schedule(&generated.snapshot)
        .flights
        .iter()
        .chain(ad_hoc_flights(&generated))
    {
        record_stands(&mut stands, r);
    }
    let mut pushes = 0;
    for message in &generated.events {
        let Body::FlightOperation(op) = &message.body else {
            continue;
        };
        let r = &op.flights[0];
        if op.subtype == FlopSubtype::Psdt {
            record_stands(&mut stands, r);
        }
        for push in r.psht.items() {
            let stand = push.pust.value().expect("PUST");
            assert!(
                stands[&r.flid].contains(stand),
                "{}: push from {stand}",
                r.flid
            );
            pushes += 1;
        }
    }
    assert!(pushes > 50, "only {pushes} pushbacks");
}

#[test]
fn same_seed_same_bytes_other_seed_other_day() {
    let xml = |seed| -> Vec<String> {
        let generated = airport_day(&day(seed, 120));
        all_messages(&generated).map(to_xml).collect()
    };
    let first = xml(7);
    assert_eq!(first, xml(7));
    assert_ne!(first, xml(8));
    let opening = snapshot_of(&day(7, 120), Moment::Opening);
    assert_eq!(
        to_xml(&opening),
        first[0],
        "snapshot_of matches airport_day"
    );
}

#[test]
fn a_full_day_of_9999_flights_is_a_heavy_snapshot() {
    let options = day(1, 9_999);
    for moment in [Moment::Opening, Moment::Closing] {
        let snapshot = snapshot_of(&options, moment);
        let rows = detail_rows(&snapshot);
        let xml = to_xml(&snapshot);
        let flights = schedule(&snapshot).flights.len();
        println!(
            "{moment:?} snapshot of 9,999 flights: {flights} FLTRs, {rows} detail rows, {} bytes of XML",
            xml.len()
        );
        if moment == Moment::Closing {
            assert!((120_000..=180_000).contains(&rows), "{rows} detail rows");
            // Read on two cores (the default for a message this size) and on one.
            let parsed = parse_slice(xml.as_bytes(), &roomy()).expect("parses");
            assert_eq!(parsed, snapshot);
            let one_core = ParseOptions {
                second_reader_from_bytes: None,
                ..roomy()
            };
            let parsed = parse_slice(xml.as_bytes(), &one_core).expect("parses");
            assert_eq!(parsed, snapshot);
            let mut handed = Vec::new();
            let rest = parse_slice_handing(xml.as_bytes(), &roomy(), &mut |record| {
                handed.push(record);
            })
            .expect("parses");
            assert_eq!(handed, schedule(&snapshot).flights);
            assert!(schedule(&rest).flights.is_empty(), "every record handed on");
        }
    }
}

// --- the CLI -----------------------------------------------------------------

/// A directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("flightstate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn flightstate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args(args)
        .args(["--config", "/nonexistent/flightstate.toml"])
        .output()
        .expect("run the flightstate binary")
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read the output directory")
        .map(|e| e.expect("directory entry").path())
        .collect();
    files.sort();
    files
}

#[test]
fn generate_writes_one_parseable_file_per_message() {
    let dir = TempDir::new("generate");
    let out_dir = dir.0.to_str().expect("UTF-8 temp path");
    let out = flightstate(&[
        "generate",
        "--day",
        "2025-03-14",
        "--flights",
        "60",
        "--seed",
        "5",
        "--out",
        out_dir,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = airport_day(&day(5, 60));
    let files = files_in(&dir.0);
    assert_eq!(files.len(), 1 + expected.events.len());
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(names[0], "0001-SCHD-DNLD.xml");
    assert!(names[1].starts_with("0002-FLOP-"), "{}", names[1]);
    // The files are the generator's messages, written as `to_xml` writes them.
    let first = std::fs::read_to_string(&files[0]).expect("read the snapshot file");
    assert_eq!(first, to_xml(&expected.snapshot));
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("60 flights"), "{summary}");

    let mut args = vec!["parse".to_owned()];
    args.extend(files.iter().map(|f| f.to_string_lossy().into_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let parsed = flightstate(&args);
    assert_eq!(
        parsed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&parsed.stderr)
    );
}

#[test]
fn generate_refuses_a_directory_that_is_not_empty() {
    let dir = TempDir::new("generate-not-empty");
    std::fs::create_dir_all(&dir.0).expect("create the directory");
    std::fs::write(dir.0.join("left-over.xml"), "<MSG/>").expect("write a file");
    let out_dir = dir.0.to_str().expect("UTF-8 temp path");
    let out = flightstate(&["generate", "--day", "2025-03-14", "--out", out_dir]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not empty"));
}
