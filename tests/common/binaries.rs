//! The flightstate binaries a test of the secured links runs: this build's
//! (the host's libpq and OpenSSL) and, where `FLIGHTSTATE_TEST_RELEASE_BINARY`
//! names it, the shipped one (libpq and OpenSSL built in), so that the TLS a
//! site gets is the TLS that was tested.

use std::path::PathBuf;

/// Names the release build's binary (`scripts/release`), to be run too.
const RELEASE_BINARY_VAR: &str = "FLIGHTSTATE_TEST_RELEASE_BINARY";

/// A flightstate binary and what it is.
pub struct Binary {
    /// Which one, for messages.
    pub what: &'static str,
    /// Where it is.
    pub path: PathBuf,
}

/// This build's binary, and the release build's when
/// `FLIGHTSTATE_TEST_RELEASE_BINARY` names it.
///
/// # Panics
///
/// When the variable names no file, or is unset under `CI=true`.
pub fn binaries() -> Vec<Binary> {
    let mut binaries = vec![Binary {
        what: "this build's binary (the host's libpq and OpenSSL)",
        path: PathBuf::from(env!("CARGO_BIN_EXE_flightstate")),
    }];
    match std::env::var_os(RELEASE_BINARY_VAR) {
        Some(path) => {
            let path = PathBuf::from(path);
            assert!(
                path.is_file(),
                "{RELEASE_BINARY_VAR}={} is not a file",
                path.display()
            );
            binaries.push(Binary {
                what: "the release binary (libpq and OpenSSL built in, librdkafka's TLS with it)",
                path,
            });
        }
        None if std::env::var("CI").as_deref() == Ok("true") => panic!(
            "{RELEASE_BINARY_VAR} is unset: CI must prove the release binary's built-in libpq \
             and OpenSSL (.ci/run points it at the binary scripts/release built)"
        ),
        None => eprintln!(
            "{RELEASE_BINARY_VAR} is unset: only this build's binary (the host's libpq and OpenSSL) runs \
             here; the release binary's built-in libpq and OpenSSL are not tested"
        ),
    }
    binaries
}
