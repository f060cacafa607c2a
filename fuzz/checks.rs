// The properties the fuzz targets check, shared with the regression test
// that replays every input a fuzz run ever found failing
// (`tests/fuzz_regressions.rs`), so that a crash stays fixed.

use flightstate::protocol::{Body, ParseOptions, parse_slice, to_xml_with};
use flightstate::state::{
    AbsentFields, CollectionRules, StoredFlight, merge_adft, merge_event, prepare_event,
    state_document, state_from_record,
};

/// The SIS reader on any bytes: it never panics, reads alike on one core and
/// on two (the same message, or the same error), and a message it accepts is
/// written as text that reads back and is written the same again (the writer
/// leaves out what the reader only notes: unknown and ignored elements).
pub fn sis_reader(data: &[u8]) {
    let opts = ParseOptions {
        second_reader_from_bytes: None,
        ..ParseOptions::default()
    };
    let two_cores = ParseOptions {
        second_reader_from_bytes: Some(0),
        ..ParseOptions::default()
    };
    let read = parse_slice(data, &opts);
    assert_eq!(
        read.as_ref().map_err(ToString::to_string),
        parse_slice(data, &two_cores)
            .as_ref()
            .map_err(ToString::to_string),
        "read on one core, then on two"
    );
    if let Ok(message) = read {
        let written = to_xml_with(&message, &opts);
        let again = parse_slice(written.as_bytes(), &opts)
            .unwrap_or_else(|e| panic!("a written message reads back: {e}\n{written}"));
        assert_eq!(
            to_xml_with(&again, &opts),
            written,
            "written, read back and written again: the same text"
        );
    }
}

/// Record → state on any message the reader accepts: a snapshot record's
/// state and document, an ADFT merge, a flight event prepared and merged
/// into nothing and into its own result: refused with an error or built,
/// never a panic.
pub fn record_to_state(data: &[u8]) {
    let Ok(message) = parse_slice(data, &ParseOptions::default()) else {
        return;
    };
    let collections = CollectionRules::default();
    match &message.body {
        Body::Schedule(schedule) => {
            for record in &schedule.flights {
                let Ok(state) = state_from_record(record) else {
                    continue;
                };
                let stored = StoredFlight {
                    state: state.clone(),
                    operation_day: None,
                    state_version: 1,
                    last_message_id: 1,
                    updated_at: chrono::DateTime::UNIX_EPOCH.naive_utc(),
                };
                let _ = state_document(&stored);
                let _ = merge_adft(Some(&state), record, AbsentFields::Keep);
            }
        }
        Body::FlightOperation(operation) => {
            for record in &operation.flights {
                let Ok(event) = prepare_event(operation.subtype, record, &collections) else {
                    continue;
                };
                if let Some(state) = merge_event(None, &event, &collections) {
                    let _ = merge_event(Some(&state), &event, &collections);
                }
            }
        }
        _ => {}
    }
}
