//! Where the peer corpus is: `../shared/samples/peer` beside the checkout,
//! read in place and never copied into the project.

use std::path::Path;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/samples/peer");

/// The corpus folder, or `None` with one plain line when it is not there.
/// Under `CI=true` a missing corpus fails the test: CI has the folder, so
/// its absence is a broken run, never a silent pass.
#[track_caller]
pub fn samples_dir() -> Option<&'static Path> {
    let dir = Path::new(SAMPLES);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{SAMPLES} is missing, and CI must have it");
    }
    println!("skipped: ../shared/samples/peer not found");
    None
}
