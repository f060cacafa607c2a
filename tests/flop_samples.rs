//! Every FLOP sample of the peer corpus (`../shared/samples/peer/FLOP_*.xml`)
//! applied to a flight that a peer snapshot created first: the outcome and
//! the flight's full state afterwards are pinned per sample
//! (`tests/snapshots/flop_samples/`). Invalid samples end DEAD with a reason
//! and change nothing.
//!
//! The samples name flights (121112312, 7610151) that the peer's two
//! snapshots do not hold; their FLID is rewritten to 15, a departure of
//! `SCHD_DNLD_1.xml` (scalars) or `SCHD_DNLD_2.xml` (collections: that
//! snapshot carries gates, counters, chutes, … to replace or merge). ERUT
//! samples keep their FLID 16, an arrival of the same snapshots. The sample
//! files are read in place, never copied into this repository.
#![cfg(feature = "postgres")]

mod common;
mod peer;

use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;
use common::TestDatabase;
use common::sis::dump_database;
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::store::pg::PgStore;
use flightstate::store::{StateTx, Store};

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/samples/peer");

/// Subtypes whose samples carry a collection: applied over the snapshot
/// that has collections.
const COLLECTIONS: &[&str] = &[
    "ABTM", "CHDT", "CHOT", "CKDT", "CLDT", "DELY", "ERUT", "GTDT", "PSDT", "PSHT", "TIPT",
];

fn now() -> NaiveDateTime {
    NaiveDateTime::default()
}

fn samples(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read the sample directory")
        .map(|e| e.expect("sample entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("FLOP_") && n.ends_with(".xml"))
        })
        .collect();
    files.sort();
    files
}

/// What one sample did: the outcome and the flight's full state after it.
fn run_sample(path: &Path) -> serde_json::Value {
    let name = path
        .file_stem()
        .and_then(|n| n.to_str())
        .expect("a file name");
    let subtype = name.split('_').nth(1).expect("FLOP_<STYP>_<n>");
    let base = if COLLECTIONS.contains(&subtype) {
        "SCHD_DNLD_2.xml"
    } else {
        "SCHD_DNLD_1.xml"
    };
    let text = std::fs::read_to_string(path).expect("read the sample");
    let text = text
        .replace("<FLID>121112312</FLID>", "<FLID>15</FLID>")
        .replace("<FLID>7610151</FLID>", "<FLID>15</FLID>");
    let flid = if text.contains("<FLID>16</FLID>") {
        16
    } else {
        15
    };

    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let settings = Rules::default();
    let snapshot = std::fs::read(Path::new(SAMPLES).join(base)).expect("read the snapshot");
    let created = apply_message(&store, &settings, 1, &snapshot, now()).expect("snapshot");
    assert!(
        matches!(created, Applied::Snapshot(_)),
        "{base}: {created:?}"
    );

    let mut conn = db.connect();
    let before = dump_database(&mut conn);
    let applied = apply_message(&store, &settings, 2, text.as_bytes(), now())
        .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    if !matches!(applied, Applied::Flights(_)) {
        let after = dump_database(&mut conn);
        let without_outcomes = |dump: &str| {
            dump.lines()
                .filter(|l| !l.starts_with("proc_state"))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            without_outcomes(&before),
            without_outcomes(&after),
            "{name}: a refused message changed the state"
        );
    }
    let flight = store
        .transaction(|tx| tx.load_flights(&[flid]))
        .expect("load the flight")
        .remove(&flid);
    let mut flight = serde_json::to_value(&flight).expect("a state serialises");
    if let Some(object) = flight.as_object_mut() {
        object.remove("UPDATED_AT");
    }
    serde_json::json!({ "base": base, "outcome": applied, "flight": flight })
}

#[test]
#[cfg_attr(
    not(peer_samples),
    ignore = "needs the peer corpus ../shared/samples/peer beside the checkout (build.rs)"
)]
fn every_flop_sample_applies_as_pinned() {
    let dir = peer::samples_dir();
    let files = samples(dir);
    assert!(!files.is_empty(), "no FLOP samples in {}", dir.display());
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/flop_samples");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    // Two workers: each sample gets a database of its own.
    let (first, second) = files.split_at(files.len() / 2);
    let results: Vec<(String, serde_json::Value)> = std::thread::scope(|scope| {
        let run = |chunk: &[PathBuf]| {
            chunk
                .iter()
                .map(|path| {
                    let name = path
                        .file_stem()
                        .and_then(|n| n.to_str())
                        .expect("a file name")
                        .to_owned();
                    (name, run_sample(path))
                })
                .collect::<Vec<_>>()
        };
        let other = scope.spawn(move || run(second));
        let mut results = run(first);
        results.extend(other.join().expect("the second worker"));
        results
    });
    settings.bind(|| {
        for (name, value) in &results {
            insta::assert_json_snapshot!(name.as_str(), value);
        }
    });
}
