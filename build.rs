//! Rebuilds the crate when a migration is added or changed: the migrations
//! are compiled in (`embed_migrations!`), and cargo does not notice a new
//! migration directory on its own.
//!
//! Sets `cfg(peer_samples)` when the tests that read the peer corpus
//! (`../shared/samples/peer`, beside the checkout) are to run: when the folder
//! is there, or under `CI=true`, where its absence must fail them rather than
//! leave them out. Without it they are ignored with the reason (`tests/peer/`),
//! never counted as passed: the test harness has no way to ignore a test once
//! it runs, so the choice is made when the tests are built.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=migrations_pg");
    println!("cargo:rerun-if-changed=migrations_oracle");

    println!("cargo:rustc-check-cfg=cfg(peer_samples)");
    println!("cargo:rerun-if-env-changed=CI");
    let Some(manifest_dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return;
    };
    let shared = Path::new(&manifest_dir).join("../shared");
    let peer = shared.join("samples/peer");
    // Watch the nearest folder that exists, so that the corpus appearing or
    // going away is noticed by the next build. (A path that does not exist
    // would rerun this script, and rebuild the crate, on every build.)
    if let Some(watched) = [&peer, &shared.join("samples"), &shared]
        .into_iter()
        .find(|p| p.is_dir())
    {
        println!("cargo:rerun-if-changed={}", watched.display());
    }
    if peer.is_dir() || std::env::var("CI").is_ok_and(|v| v == "true") {
        println!("cargo:rustc-cfg=peer_samples");
    }
}
