//! The mailbox link's TLS, as far as an operator must be told about it.
//!
//! The `mysql` crate does the TLS itself (native-tls, that is OpenSSL), set
//! up from `mailbox.url`'s parameters (`root_cert_path`, `pkcs12_path`,
//! `pkcs12_pass`, `docs/install.md`). What it reports when that fails reads
//! like any lost connection; this module says instead that it was TLS, and
//! which setting to look at. It never decides whether to retry: the kind
//! stays the driver error's.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mysql::Opts;

/// The TLS link to the mailbox could not be made.
///
/// Happens when the server's certificate does not verify against
/// `root_cert_path` or names another host, when the client identity
/// (`pkcs12_path`, `pkcs12_pass`) cannot be used, or when the server offers
/// no TLS at all. Fix `mailbox.url` or the server's certificate; retrying
/// as it is cannot help.
#[derive(Debug, thiserror::Error)]
#[error("{what}; check the TLS parameters of `mailbox.url` (docs/install.md)")]
pub(super) struct Refused {
    what: &'static str,
    #[source]
    source: Arc<mysql::Error>,
}

/// A file that `mailbox.url` names for TLS and that cannot be read.
///
/// Happens when `root_cert_path` or `pkcs12_path` is mistyped, or the file
/// is not readable by the account flightstate runs as.
#[derive(Debug, thiserror::Error)]
#[error("`{parameter}` in `mailbox.url` names {}, which cannot be read", path.display())]
pub(super) struct Unreadable {
    parameter: &'static str,
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

/// `err` as a TLS refusal, when it is one; otherwise `err` back.
pub(super) fn refusal(err: Arc<mysql::Error>) -> Result<Refused, Arc<mysql::Error>> {
    let what = match &*err {
        mysql::Error::TlsError(_) => {
            "the TLS handshake with the mailbox failed: its certificate is not signed by \
             `root_cert_path`'s CA or names another host, or the client certificate \
             (`pkcs12_path`) was refused"
        }
        mysql::Error::DriverError(mysql::DriverError::TlsNotSupported) => {
            "the mailbox server offers no TLS, and `mailbox.url` asks for it"
        }
        _ => return Err(err),
    };
    Ok(Refused { what, source: err })
}

/// Checks that every file `opts` names for TLS can be read, so that a
/// mistyped path is told as such at start rather than as a lost
/// connection at the first read.
pub(super) fn check_files(opts: &Opts) -> Result<(), Unreadable> {
    let Some(ssl) = opts.get_ssl_opts() else {
        return Ok(());
    };
    let files = [
        ("root_cert_path", ssl.root_cert_path()),
        (
            "pkcs12_path",
            ssl.client_identity().map(|identity| identity.pkcs12_path()),
        ),
    ];
    for (parameter, path) in files {
        if let Some(path) = path {
            readable(parameter, path)?;
        }
    }
    Ok(())
}

fn readable(parameter: &'static str, path: &Path) -> Result<(), Unreadable> {
    std::fs::File::open(path)
        .map(drop)
        .map_err(|source| Unreadable {
            parameter,
            path: path.to_owned(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_failures_are_told_as_such_and_others_pass_through() {
        let no_tls = mysql::Error::DriverError(mysql::DriverError::TlsNotSupported);
        let refused = refusal(no_tls.into()).expect("a TLS refusal");
        assert!(
            refused
                .to_string()
                .starts_with("the mailbox server offers no TLS")
        );
        let reset =
            mysql::Error::IoError(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert!(refusal(reset.into()).is_err());
    }

    #[test]
    fn an_unreadable_ca_file_is_named() {
        let opts =
            Opts::from_url("mysql://u@h/db?root_cert_path=/nonexistent/ca.pem").expect("a URL");
        let err = check_files(&opts).expect_err("no such file");
        assert_eq!(
            err.to_string(),
            "`root_cert_path` in `mailbox.url` names /nonexistent/ca.pem, which cannot be read"
        );
        let plain = Opts::from_url("mysql://u@h/db").expect("a URL");
        assert!(check_files(&plain).is_ok());
    }
}
