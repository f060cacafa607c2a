//! Which state database a URL names, and URLs fit to print.

use super::ConfigError;

/// Which state-database dialect a URL selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `postgres://` or `postgresql://`.
    Postgres,
    /// `oracle://`.
    Oracle,
}

/// Tells the dialect of a state-database URL, and whether this build has it.
///
/// # Errors
///
/// [`ConfigError::BadValue`] for another scheme, or for a dialect whose cargo
/// feature this build lacks.
pub fn database_dialect(url: &str) -> Result<Dialect, ConfigError> {
    let bad = |reason| ConfigError::BadValue {
        setting: "database.url",
        value: redact_url(url),
        reason,
    };
    let dialect = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Dialect::Postgres
    } else if url.starts_with("oracle://") {
        Dialect::Oracle
    } else {
        return Err(bad("must start with postgres:// or oracle://"));
    };
    match dialect {
        Dialect::Postgres if !cfg!(feature = "postgres") => Err(bad(
            "this build has no PostgreSQL support (feature `postgres`)",
        )),
        Dialect::Oracle if !cfg!(feature = "oracle") => {
            Err(bad("this build has no Oracle support (feature `oracle`)"))
        }
        _ => Ok(dialect),
    }
}

/// A URL with its password replaced, fit for logs and error messages.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((userinfo, host)) = rest.split_once('@') else {
        return url.to_owned();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}
