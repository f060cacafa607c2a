//! Connections: the `oracle://` URL, and the r2d2 manager that opens sessions.
//!
//! The `oracle` crate has its own session pool, but the crate's other pools are r2d2's, and
//! the r2d2 one gives the same `connection_timeout`, `test_on_check_out` and metrics here:
//! a small [`r2d2::ManageConnection`] is all it takes.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use oracle::{ConnStatus, Connection, Connector};

use super::statements;
use crate::FailureKind;
use crate::store::{StoreError, Timeouts};

/// Where and as whom to connect, parsed from
/// `oracle://user:password@host[:port]/service_name` (Easy Connect) or
/// `oracle://user:password@tns_alias`, each optionally followed by `?schema=OWNER`. User and
/// password may be percent-encoded.
///
/// `schema` names the schema owner when the user is an application user that is not the
/// owner: each session then sets `CURRENT_SCHEMA` to it (unqualified table names resolve
/// there) and names the id-list type owner-qualified (OCI looks a type name up in the
/// connected user's schema, not the current one). Without it the user must be the owner.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct OracleUrl {
    pub(super) user: String,
    pub(super) password: String,
    pub(super) connect_string: String,
    pub(super) schema: Option<String>,
}

impl fmt::Debug for OracleUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the password.
        f.debug_struct("OracleUrl")
            .field("user", &self.user)
            .field("connect_string", &self.connect_string)
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

fn bad_url(why: &'static str) -> StoreError {
    StoreError::new(
        FailureKind::Other,
        "read the Oracle URL (oracle://user:password@host:port/service_name)",
        why,
    )
}

fn percent_decode(text: &str) -> Result<String, StoreError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    bad_url("a `%` in the user or password is not followed by two hex digits")
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| bad_url("the user or password is not UTF-8"))
}

impl OracleUrl {
    /// Parses an `oracle://` URL. The error never repeats the URL (it may hold a password).
    pub(super) fn parse(url: &str) -> Result<OracleUrl, StoreError> {
        let rest = url
            .strip_prefix("oracle://")
            .ok_or_else(|| bad_url("it does not start with oracle://"))?;
        let (rest, params) = rest.split_once('?').unwrap_or((rest, ""));
        let schema = schema_param(params)?;
        let (credentials, target) = rest
            .rsplit_once('@')
            .ok_or_else(|| bad_url("it has no user@ part"))?;
        let (user, password) = credentials
            .split_once(':')
            .ok_or_else(|| bad_url("it has no password (user:password@)"))?;
        if user.is_empty() || target.is_empty() {
            return Err(bad_url("the user or the host is empty"));
        }
        // `host:port:SID` (the JDBC thin form) is not Easy Connect, which names a service; the
        // client would take the SID for part of the port and fail at connect time.
        if !target.contains('/') && target.matches(':').count() > 1 {
            return Err(bad_url(
                "host:port:SID is not Easy Connect: name the service (host:port/service), or a \
                 TNS alias whose CONNECT_DATA names the SID",
            ));
        }
        // host:port/service is Easy Connect (`//host:port/service`); a bare name is a TNS alias.
        let connect_string = if target.contains('/') || target.contains(':') {
            format!("//{target}")
        } else {
            target.to_owned()
        };
        Ok(OracleUrl {
            user: percent_decode(user)?,
            password: percent_decode(password)?,
            connect_string,
            schema,
        })
    }

    /// Whether sessions must switch to another schema: a `schema` other than the user.
    fn other_owner(&self) -> Option<&str> {
        self.schema
            .as_deref()
            .filter(|owner| !owner.eq_ignore_ascii_case(&self.user))
    }

    /// The id-list collection type as this user's sessions name it.
    pub(super) fn id_list_type(&self) -> String {
        match self.other_owner() {
            Some(owner) => format!("{owner}.{}", super::binds::ID_LIST_TYPE),
            None => super::binds::ID_LIST_TYPE.to_owned(),
        }
    }
}

/// The `schema` of the URL's query (`?schema=OWNER`), upper case. Only an unquoted Oracle
/// identifier is taken (a letter, then letters, digits, `_`, `$`, `#`; at most 30 bytes):
/// the name also ends up in the id-list type name the driver looks up.
fn schema_param(params: &str) -> Result<Option<String>, StoreError> {
    let mut schema = None;
    for pair in params.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("schema", value)) => {
                let valid = value.len() <= 30
                    && value.starts_with(|c: char| c.is_ascii_alphabetic())
                    && value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '#'));
                if !valid {
                    return Err(bad_url(
                        "`schema` is not an unquoted Oracle name (a letter, then letters, digits, _, $ or #; at most 30)",
                    ));
                }
                schema = Some(value.to_ascii_uppercase());
            }
            _ => return Err(bad_url("its only query parameter may be `schema=OWNER`")),
        }
    }
    Ok(schema)
}

/// Opens sessions for the r2d2 pool, each set up the same way.
pub(super) struct OracleManager {
    url: OracleUrl,
    call_timeout: Option<Duration>,
    /// Whether the client refused a call timeout already (said once).
    no_call_timeout: AtomicBool,
}

impl fmt::Debug for OracleManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OracleManager")
            .field("url", &self.url)
            .finish()
    }
}

impl OracleManager {
    /// A manager whose sessions bound every round trip by the client's call timeout, when
    /// `timeouts` are given (migrations, whose DDL may run long, give none): the statement
    /// timeout when one is set (a call may legitimately run that long, and Oracle has no
    /// per-session statement timeout to lean on), else `io`. A silent link is then noticed
    /// within that time too.
    /// The id-list collection type as this manager's sessions name it.
    pub(super) fn id_list_type(&self) -> String {
        self.url.id_list_type()
    }

    pub(super) fn new(url: OracleUrl, timeouts: Option<&Timeouts>) -> OracleManager {
        let call_timeout = timeouts.map(|t| t.statement.map_or(t.io, |s| s.max(t.io)));
        OracleManager {
            url,
            call_timeout,
            no_call_timeout: AtomicBool::new(false),
        }
    }

    /// Opens one session: autocommit off (the crate's default; the transaction guard commits),
    /// a statement cache holding every statement of the dialect (STYLE §3.6) where the
    /// instance's `OPEN_CURSORS` allows, as many as fit under it where not, and the module
    /// name a DBA sees in `V$SESSION`.
    pub(super) fn open(&self) -> oracle::Result<Connection> {
        let conn = Connector::new(
            self.url.user.as_str(),
            self.url.password.as_str(),
            self.url.connect_string.as_str(),
        )
        .connect()?;
        // Every cached statement keeps a cursor open: the cache fits under the instance's
        // OPEN_CURSORS (ORA-01000 past it), holding every statement where that allows.
        let cache = super::limits::statement_cache_size(super::limits::open_cursors(&conn));
        conn.set_stmt_cache_size(cache)?;
        conn.set_module("flightstate")?;
        if let Some(owner) = self.url.other_owner() {
            conn.execute_named(
                statements::SET_CURRENT_SCHEMA,
                &[("schema_name", &super::binds::Text(Some(owner)))],
            )?;
        }
        // Call timeouts need Oracle Client 18 or later; an older client works without one.
        if let Some(limit) = self.call_timeout
            && let Err(e) = conn.set_call_timeout(Some(limit))
            && !self.no_call_timeout.swap(true, Ordering::Relaxed)
        {
            tracing::warn!(
                error = %e,
                "the Oracle client cannot bound calls (Instant Client 18 or later can): a silent link may stall a session"
            );
        }
        Ok(conn)
    }
}

impl r2d2::ManageConnection for OracleManager {
    type Connection = Connection;
    type Error = oracle::Error;

    fn connect(&self) -> Result<Connection, oracle::Error> {
        self.open()
    }

    fn is_valid(&self, conn: &mut Connection) -> Result<(), oracle::Error> {
        conn.ping()
    }

    fn has_broken(&self, conn: &mut Connection) -> bool {
        // An attribute read on the client side: no round trip, so it cannot block.
        !matches!(conn.status(), Ok(ConnStatus::Normal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn easy_connect_and_tns_alias_urls() {
        let url = OracleUrl::parse("oracle://fs:s%40cret@db.example:1521/ORCL").expect("url");
        assert_eq!(url.user, "fs");
        assert_eq!(url.password, "s@cret");
        assert_eq!(url.connect_string, "//db.example:1521/ORCL");
        let alias = OracleUrl::parse("oracle://fs:pw@PRODDB").expect("alias");
        assert_eq!(alias.connect_string, "PRODDB");
        let sid = OracleUrl::parse("oracle://fs:pw@db.example:1521:ORCL").expect_err("a SID");
        assert_eq!(sid.kind(), FailureKind::Other);
        let said = crate::failure::Causes(&sid).to_string();
        assert!(
            said.contains("TNS alias"),
            "the error says what to write instead: {said}"
        );
        assert_eq!(alias.schema, None);
        assert_eq!(alias.id_list_type(), "FLIGHTSTATE_ID_LIST");
    }

    #[test]
    fn an_application_user_names_the_owner() {
        let url = OracleUrl::parse("oracle://fs_app:pw@db:1521/ORCL?schema=fs_owner").expect("url");
        assert_eq!(url.connect_string, "//db:1521/ORCL");
        assert_eq!(url.schema.as_deref(), Some("FS_OWNER"));
        assert_eq!(url.other_owner(), Some("FS_OWNER"));
        assert_eq!(url.id_list_type(), "FS_OWNER.FLIGHTSTATE_ID_LIST");
        let owner = OracleUrl::parse("oracle://fs_owner:pw@PRODDB?schema=FS_OWNER").expect("url");
        assert_eq!(owner.other_owner(), None);
        assert_eq!(owner.id_list_type(), "FLIGHTSTATE_ID_LIST");
        for bad in [
            "oracle://u:p@h/S?schema=",
            "oracle://u:p@h/S?schema=a.b",
            "oracle://u:p@h/S?schema=1abc",
            "oracle://u:p@h/S?schema=x%27",
            "oracle://u:p@h/S?owner=X",
        ] {
            assert_eq!(
                OracleUrl::parse(bad).expect_err(bad).kind(),
                FailureKind::Other
            );
        }
    }

    #[test]
    fn bad_urls_are_refused_without_echoing_them() {
        for url in [
            "postgres://u:p@h/db",
            "oracle://h:1521/ORCL",
            "oracle://u@h:1521/ORCL",
            "oracle://u:p%zz@h/ORCL",
        ] {
            let err = OracleUrl::parse(url).expect_err(url);
            assert_eq!(err.kind(), FailureKind::Other);
            assert!(!format!("{err:#}").contains("p%zz"));
        }
        let debug = format!(
            "{:?}",
            OracleUrl::parse("oracle://u:hunter2@h/S").expect("url")
        );
        assert!(!debug.contains("hunter2"));
    }
}
