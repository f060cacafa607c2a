//! Every input a fuzz run found failing, replayed through the property it
//! broke (`fuzz/checks.rs`): `tests/fuzz/<target>/` holds them, one file
//! each, saved there by `scripts/fuzz` when its run fails and committed with
//! the fix. The project's own golden messages and each target's seed corpus
//! (`fuzz/seeds/<target>/`) are replayed too, so the checks themselves are
//! known to run, and a seed that breaks one is found by `cargo test` rather
//! than by the fuzzer's first input.

#[path = "../fuzz/checks.rs"]
mod checks;

use std::path::Path;

fn inputs(dir: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file() && path.file_name().is_some_and(|n| n != ".keep"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("read an input");
            (path.display().to_string(), bytes)
        })
        .collect()
}

#[test]
fn the_reader_holds_on_every_input_found_and_every_golden_message() {
    let mut n = 0;
    for dir in [
        "tests/fuzz/sis_reader",
        "fuzz/seeds/sis_reader",
        "tests/messages",
    ] {
        for (_, bytes) in inputs(dir) {
            checks::sis_reader(&bytes);
            n += 1;
        }
    }
    assert!(n > 0, "nothing replayed");
}

#[test]
fn record_to_state_holds_on_every_input_found_and_every_golden_message() {
    let mut n = 0;
    for dir in [
        "tests/fuzz/record_to_state",
        "fuzz/seeds/record_to_state",
        "tests/messages",
    ] {
        for (_, bytes) in inputs(dir) {
            checks::record_to_state(&bytes);
            n += 1;
        }
    }
    assert!(n > 0, "nothing replayed");
}

/// record -> state checks only what the reader accepts: a seed it refuses would seed the
/// fuzzer with nothing past the reader.
#[test]
fn every_record_to_state_seed_is_a_message_the_reader_accepts() {
    use flightstate::protocol::{ParseOptions, parse_slice};

    let seeds = inputs("fuzz/seeds/record_to_state");
    assert!(seeds.len() > 1, "the record_to_state corpus holds no seeds");
    for (path, bytes) in seeds {
        if let Err(e) = parse_slice(&bytes, &ParseOptions::default()) {
            panic!("{path}: {e}");
        }
    }
}
