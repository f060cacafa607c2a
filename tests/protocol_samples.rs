//! Every message of the peer's sample corpus, parsed; each outcome (the message as JSON, or
//! why it is rejected) is pinned by a snapshot named after the file, and is the same when
//! the message is read on two cores.

use std::fs;

use flightstate::protocol::{ParseOptions, parse_slice};

mod peer;

fn outcome(bytes: &[u8], opts: &ParseOptions) -> String {
    match parse_slice(bytes, opts) {
        Ok(message) => match serde_json::to_string_pretty(&message) {
            Ok(json) => json,
            Err(e) => format!("not serializable: {e}"),
        },
        Err(e) => format!("rejected: {e}"),
    }
}

#[test]
#[cfg_attr(
    not(peer_samples),
    ignore = "needs the peer corpus ../shared/samples/peer beside the checkout (build.rs)"
)]
fn every_sample_has_its_pinned_outcome() {
    let dir = peer::samples_dir();
    let mut files: Vec<_> = fs::read_dir(dir)
        .expect("the samples folder is readable")
        .map(|entry| entry.expect("a sample entry is readable").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "xml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *.xml in {}", dir.display());

    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/protocol_samples");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for path in &files {
            let name = path
                .file_stem()
                .and_then(|stem| stem.to_str())
                .expect("sample names are UTF-8");
            let bytes = fs::read(path).expect("a sample is readable");
            let one_core = ParseOptions {
                second_reader_from_bytes: None,
                ..ParseOptions::default()
            };
            let read = outcome(&bytes, &one_core);
            let two_cores = ParseOptions {
                second_reader_from_bytes: Some(0),
                ..ParseOptions::default()
            };
            assert_eq!(read, outcome(&bytes, &two_cores), "{name} on two cores");
            insta::assert_snapshot!(name, read);
        }
    });
}
