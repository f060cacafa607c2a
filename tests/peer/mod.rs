//! Where the peer corpus is: `../shared/samples/peer` beside the checkout,
//! read in place and never copied into the project.
//!
//! A test that reads it carries
//! `#[cfg_attr(not(peer_samples), ignore = "needs the peer corpus ../shared/samples/peer")]`:
//! the corpus is looked for when the tests are built (`build.rs`), so that without it such a
//! test is reported ignored with its reason rather than passed on nothing, while with it, or
//! under `CI=true` where its absence fails the test, it runs.

use std::path::Path;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/samples/peer");

/// The corpus folder. A test that is run without it fails: it was built when the folder was
/// there (it went away since), or under `CI=true`, where CI must have it.
#[track_caller]
pub fn samples_dir() -> &'static Path {
    let dir = Path::new(SAMPLES);
    assert!(
        dir.is_dir(),
        "{SAMPLES} is missing; CI must have it, and elsewhere a build without it ignores this test"
    );
    dir
}
