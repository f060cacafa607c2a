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

/// Query parameters whose value is a secret: libpq's `password`, the
/// mysql crate's `pkcs12_pass`, libpq's `sslpassword`.
const SECRET_PARAMETERS: [&str; 3] = ["password", "pkcs12_pass", "sslpassword"];

/// A URL with its password replaced, fit for logs and error messages: the
/// password of `user:password@host` (which may itself hold `@`: the host
/// follows the last one) and the value of every secret query parameter.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (address, query) = match rest.split_once('?') {
        Some((address, query)) => (address, Some(query)),
        None => (rest, None),
    };
    let address = match address.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => address.to_owned(),
    };
    let query = query.map(|query| {
        query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if SECRET_PARAMETERS.contains(&key) => format!("{key}=***"),
                _ => pair.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("&")
    });
    match query {
        Some(query) => format!("{scheme}://{address}?{query}"),
        None => format!("{scheme}://{address}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_password_of_a_url_is_masked() {
        for (url, shown) in [
            ("postgres://u:pw@h/db", "postgres://u:***@h/db"),
            ("postgres://u:p@ss@h:5432/db", "postgres://u:***@h:5432/db"),
            ("postgres://u@h/db", "postgres://u@h/db"),
            (
                "postgres://h/db?sslmode=require",
                "postgres://h/db?sslmode=require",
            ),
            (
                "postgres://h/db?user=u&password=pw&sslmode=verify-full",
                "postgres://h/db?user=u&password=***&sslmode=verify-full",
            ),
            (
                "mysql://r:pw@h/aodb?root_cert_path=/ca.pem&pkcs12_pass=k",
                "mysql://r:***@h/aodb?root_cert_path=/ca.pem&pkcs12_pass=***",
            ),
            ("not a url", "not a url"),
        ] {
            assert_eq!(redact_url(url), shown, "{url}");
        }
    }
}
