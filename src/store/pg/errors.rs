//! The one place where PostgreSQL failures become a [`FailureKind`].
//!
//! diesel turns the server's SQLSTATE into a [`DatabaseErrorKind`] (and reports a dead
//! connection as `ClosedConnection` whatever the code said); [`failure_kind`] maps those kinds
//! to ours. Nothing else in the crate looks at diesel's error kinds or at the server's text.

use std::error::Error as StdError;

use diesel::ConnectionError;
use diesel::result::{DatabaseErrorKind, Error as DieselError};

use crate::FailureKind;
use crate::store::StoreError;

/// The SQLSTATE codes behind each mapping, from
/// <https://www.postgresql.org/docs/current/errcodes-appendix.html>.
///
/// diesel 2.3 does not hand the code itself to callers: it classifies it into a
/// [`DatabaseErrorKind`] and reports everything it does not know as `Unknown`. The codes are
/// kept here so that a reader can check each arm of `failure_kind` against the table, and so
/// that the gaps are written down where they bite.
#[allow(dead_code)] // documentation of the mapping; see the module doc of `error_codes`
mod error_codes {
    /// `unique_violation` → [`FailureKind::Duplicate`](crate::FailureKind::Duplicate)
    /// (diesel: `UniqueViolation`).
    pub(super) const UNIQUE_VIOLATION: &str = "23505";
    /// `foreign_key_violation` → [`FailureKind::MissingParent`](crate::FailureKind::MissingParent)
    /// (diesel: `ForeignKeyViolation`).
    pub(super) const FOREIGN_KEY_VIOLATION: &str = "23503";
    /// `serialization_failure` → [`FailureKind::Conflict`](crate::FailureKind::Conflict)
    /// (diesel: `SerializationFailure`).
    pub(super) const SERIALIZATION_FAILURE: &str = "40001";
    /// `deadlock_detected` → should be `Conflict`, but diesel 2.3 reports it as `Unknown`, so it
    /// arrives as [`FailureKind::Other`](crate::FailureKind::Other). Both kinds are retryable:
    /// the pump retries it the same way.
    pub(super) const DEADLOCK_DETECTED: &str = "40P01";
    /// Class 08, `connection_exception` and its subclasses (08000, 08001, 08004, 08006) →
    /// [`FailureKind::ConnectionLost`](crate::FailureKind::ConnectionLost) (diesel:
    /// `ClosedConnection`, also set whenever libpq reports the connection as bad).
    pub(super) const CONNECTION_EXCEPTION_CLASS: &str = "08";
    /// `admin_shutdown` (`pg_terminate_backend`, a fast or smart shutdown), `crash_shutdown`
    /// (another backend crashed: every session is ended) and `cannot_connect_now` (starting
    /// up, shutting down, in recovery) → [`FailureKind::ConnectionLost`](crate::FailureKind::ConnectionLost).
    /// diesel 2.3 reports them as `ClosedConnection` when libpq has seen the socket close by
    /// the time the error is read, and as `Unknown` otherwise, so they are also recognised by
    /// the server's primary message ([`SESSION_ENDED_MESSAGES`](super::SESSION_ENDED_MESSAGES)).
    pub(super) const ADMIN_SHUTDOWN: &str = "57P01";
    /// See [`ADMIN_SHUTDOWN`].
    pub(super) const CRASH_SHUTDOWN: &str = "57P02";
    /// See [`ADMIN_SHUTDOWN`].
    pub(super) const CANNOT_CONNECT_NOW: &str = "57P03";
    /// `query_canceled` (e.g. `statement_timeout`) → should be `Timeout`, but diesel 2.3
    /// reports it as `Unknown`, so it arrives as [`FailureKind::Other`](crate::FailureKind::Other),
    /// retryable like `Timeout`.
    pub(super) const QUERY_CANCELED: &str = "57014";
    /// Class 23, `integrity_constraint_violation`: `not_null_violation` (23502),
    /// `check_violation` (23514), `restrict_violation` (23001), `exclusion_violation` (23P01)
    /// → [`FailureKind::DataRejected`](crate::FailureKind::DataRejected) (diesel names each);
    /// 23505 and 23503 keep their own kinds above, which are not retried either.
    pub(super) const INTEGRITY_CONSTRAINT_VIOLATION_CLASS: &str = "23";
    /// Class 22, `data_exception` (22001 string too long, 22003 numeric out of range, 22008
    /// datetime out of range, 22021 invalid byte sequence, 22P02 invalid text, 22P05
    /// untranslatable character, …) → [`FailureKind::DataRejected`](crate::FailureKind::DataRejected).
    /// diesel 2.3 reports the class as `Unknown` and hides the code, so it is recognised by
    /// the server's primary message ([`DATA_EXCEPTION_MESSAGES`](super::DATA_EXCEPTION_MESSAGES)).
    pub(super) const DATA_EXCEPTION_CLASS: &str = "22";
}

/// How PostgreSQL words the data exceptions (class 22) and the program limits a single row
/// can exceed (54000) — every one of them caused by the values written, never by the server's
/// condition. Matched against the primary message because diesel 2.3 does not pass the
/// SQLSTATE on; they are the server's English texts, so a server whose `lc_messages` is not
/// English reports these as [`FailureKind::Other`] (retried, with the server's own words in
/// the recorded reason). `docs/pump.md` asks sites for `lc_messages = 'C'` for that reason.
const DATA_EXCEPTION_MESSAGES: &[&str] = &[
    "invalid byte sequence for encoding",
    "has no equivalent in encoding",
    "value too long for type",
    "numeric field overflow",
    "out of range",
    "invalid input syntax for type",
    "invalid input value for enum",
    "incorrect binary data format",
    "division by zero",
    "unsupported Unicode escape sequence",
    "row is too big",
    "index row size",
    "index row requires",
];

/// How PostgreSQL words the end of a session it ended itself or cannot serve now (57P01,
/// 57P02, 57P03, and the idle timeouts 57P05 and 25P03, which also start "terminating
/// connection"), and how libpq words a server that went away: nothing of the message, so
/// never counted by the head bypass rule. English texts, like [`DATA_EXCEPTION_MESSAGES`];
/// under another `lc_messages` a session killed while libpq has not yet seen the socket
/// close is `Other`.
const SESSION_ENDED_MESSAGES: &[&str] = &[
    "terminating connection",
    "the database system is starting up",
    "the database system is shutting down",
    "the database system is in recovery mode",
    "the database system is not yet accepting connections",
    "the database system is not accepting connections",
    "server closed the connection unexpectedly",
    "no connection to the server",
];

/// Whether the server ended the session or cannot serve one now (see
/// [`SESSION_ENDED_MESSAGES`]).
fn is_session_ended(message: &str) -> bool {
    SESSION_ENDED_MESSAGES
        .iter()
        .any(|known| message.contains(known))
}

/// Whether a statement failed on the values it wrote (see [`DATA_EXCEPTION_MESSAGES`]).
fn is_data_exception(message: &str) -> bool {
    DATA_EXCEPTION_MESSAGES
        .iter()
        .any(|known| message.contains(known))
}

/// Classifies a diesel error. The one mapping from PostgreSQL failures to [`FailureKind`].
pub(super) fn failure_kind(err: &DieselError) -> FailureKind {
    match err {
        DieselError::DatabaseError(kind, info) => match kind {
            DatabaseErrorKind::UniqueViolation => FailureKind::Duplicate,
            DatabaseErrorKind::ForeignKeyViolation => FailureKind::MissingParent,
            DatabaseErrorKind::SerializationFailure => FailureKind::Conflict,
            DatabaseErrorKind::ClosedConnection => FailureKind::ConnectionLost,
            DatabaseErrorKind::NotNullViolation
            | DatabaseErrorKind::CheckViolation
            | DatabaseErrorKind::RestrictViolation
            | DatabaseErrorKind::ExclusionViolation => FailureKind::DataRejected,
            _ if is_session_ended(info.message()) => FailureKind::ConnectionLost,
            _ if is_data_exception(info.message()) => FailureKind::DataRejected,
            // Deadlocks (40P01) and cancelled statements (57014) land here too: diesel does
            // not tell them apart (see `error_codes`).
            _ => FailureKind::Other,
        },
        // The commit failed; what matters is why it failed, not that the rollback did too.
        DieselError::RollbackErrorOnCommit { commit_error, .. } => failure_kind(commit_error),
        _ => FailureKind::Other,
    }
}

/// Wraps a failed statement.
pub(super) fn query(op: &'static str, err: DieselError) -> StoreError {
    StoreError::new(failure_kind(&err), op, err)
}

/// Wraps a failed connection attempt. A server that cannot be reached is `ConnectionLost`
/// (retry later); a malformed URL is `Other`, since retrying cannot fix configuration.
pub(super) fn connect(op: &'static str, err: ConnectionError) -> StoreError {
    let kind = match &err {
        ConnectionError::BadConnection(_) => FailureKind::ConnectionLost,
        ConnectionError::CouldntSetupConfiguration(inner) => failure_kind(inner),
        _ => FailureKind::Other,
    };
    StoreError::new(kind, op, err)
}

/// Wraps a failure reported by diesel_migrations, which boxes the diesel error of a failing
/// statement: that error decides the kind.
pub(super) fn migration(op: &'static str, err: Box<dyn StdError + Send + Sync>) -> StoreError {
    let kind = err
        .downcast_ref::<DieselError>()
        .map_or(FailureKind::Other, failure_kind);
    StoreError::new(kind, op, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db_error(kind: DatabaseErrorKind) -> DieselError {
        DieselError::DatabaseError(kind, Box::new(String::from("from the server")))
    }

    #[test]
    fn database_error_kinds_map_to_failure_kinds() {
        let cases = [
            (DatabaseErrorKind::UniqueViolation, FailureKind::Duplicate),
            (
                DatabaseErrorKind::ForeignKeyViolation,
                FailureKind::MissingParent,
            ),
            (
                DatabaseErrorKind::SerializationFailure,
                FailureKind::Conflict,
            ),
            (
                DatabaseErrorKind::ClosedConnection,
                FailureKind::ConnectionLost,
            ),
            (DatabaseErrorKind::CheckViolation, FailureKind::DataRejected),
            (
                DatabaseErrorKind::NotNullViolation,
                FailureKind::DataRejected,
            ),
            (DatabaseErrorKind::Unknown, FailureKind::Other),
        ];
        for (diesel_kind, expected) in cases {
            assert_eq!(
                failure_kind(&db_error(diesel_kind)),
                expected,
                "{diesel_kind:?}"
            );
        }
    }

    #[test]
    fn data_exceptions_are_told_by_the_server_message() {
        let data = [
            "invalid byte sequence for encoding \"UTF8\": 0x00",
            "value too long for type character varying(3)",
            "numeric field overflow",
            "date/time field value out of range: \"2026-13-01\"",
        ];
        for message in data {
            let err = DieselError::DatabaseError(
                DatabaseErrorKind::Unknown,
                Box::new(message.to_owned()),
            );
            assert_eq!(failure_kind(&err), FailureKind::DataRejected, "{message}");
        }
        for message in [
            "deadlock detected",
            "canceling statement due to statement timeout",
            "permission denied for table flight_schd",
            "could not extend file: No space left on device",
        ] {
            let err = DieselError::DatabaseError(
                DatabaseErrorKind::Unknown,
                Box::new(message.to_owned()),
            );
            assert_eq!(failure_kind(&err), FailureKind::Other, "{message}");
        }
    }

    #[test]
    fn a_session_the_server_ended_is_connection_lost_whatever_diesel_called_it() {
        for message in [
            "terminating connection due to administrator command",
            "terminating connection because of crash of another server process",
            "the database system is starting up",
            "the database system is shutting down",
            "the database system is in recovery mode",
            "the database system is not yet accepting connections",
            "terminating connection due to idle-in-transaction timeout",
            "server closed the connection unexpectedly\n\tThis probably means the server \
             terminated abnormally\n\tbefore or while processing the request.",
            "no connection to the server",
        ] {
            let err = DieselError::DatabaseError(
                DatabaseErrorKind::Unknown,
                Box::new(message.to_owned()),
            );
            assert_eq!(failure_kind(&err), FailureKind::ConnectionLost, "{message}");
        }
    }

    #[test]
    fn failed_commit_is_classified_by_the_commit_error() {
        let err = DieselError::RollbackErrorOnCommit {
            rollback_error: Box::new(db_error(DatabaseErrorKind::ClosedConnection)),
            commit_error: Box::new(db_error(DatabaseErrorKind::SerializationFailure)),
        };
        assert_eq!(failure_kind(&err), FailureKind::Conflict);
    }

    #[test]
    fn unreachable_server_is_connection_lost_but_bad_url_is_not() {
        let lost = connect("connect", ConnectionError::BadConnection("refused".into()));
        assert_eq!(lost.kind(), FailureKind::ConnectionLost);
        let bad_url = connect("connect", ConnectionError::InvalidConnectionUrl("x".into()));
        assert_eq!(bad_url.kind(), FailureKind::Other);
    }

    #[test]
    fn migration_failure_takes_the_kind_of_the_boxed_diesel_error() {
        let boxed: Box<dyn StdError + Send + Sync> =
            Box::new(db_error(DatabaseErrorKind::ClosedConnection));
        assert_eq!(
            migration("migrate", boxed).kind(),
            FailureKind::ConnectionLost
        );
        let other: Box<dyn StdError + Send + Sync> = "no such migration".into();
        assert_eq!(migration("migrate", other).kind(), FailureKind::Other);
    }
}
