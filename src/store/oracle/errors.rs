//! The one place where Oracle failures become a [`FailureKind`].
//!
//! The `oracle` crate reports every failure with an [`ErrorKind`] and, for errors raised by
//! the server or the client library, the `ORA-` number ([`oracle::Error::oci_code`]) or the
//! ODPI-C `DPI-` number ([`oracle::Error::dpi_code`]). [`failure_kind`] maps those numbers;
//! nothing else in the crate looks at them or at the driver's text.

use oracle::ErrorKind;

use crate::FailureKind;
use crate::store::StoreError;

/// The Oracle codes behind each mapping. `ORA-` numbers are from the *Oracle Database Error
/// Messages* reference, <https://docs.oracle.com/cd/E11882_01/server.112/e17766/toc.htm>
/// (11.2); `DPI-` numbers from ODPI-C's error list,
/// <https://oracle.github.io/odpi/doc/user_guide/errors.html>.
mod error_codes {
    /// ORA-00001 unique constraint violated → `Duplicate`.
    pub(super) const UNIQUE_CONSTRAINT: i32 = 1;
    /// ORA-02291 integrity constraint violated, parent key not found → `MissingParent`.
    pub(super) const PARENT_KEY_NOT_FOUND: i32 = 2291;
    /// ORA-08177 can't serialize access for this transaction → `Conflict`.
    pub(super) const CANNOT_SERIALIZE: i32 = 8177;
    /// ORA-00060 deadlock detected while waiting for resource → `Conflict`.
    pub(super) const DEADLOCK: i32 = 60;
    /// Transient and retried → `Conflict`: concurrent work won, and the same work a moment
    /// later succeeds. ORA-00054 resource busy and acquire with NOWAIT specified or timeout
    /// expired (a DDL of `migrate` waiting out `DDL_LOCK_TIMEOUT` beside a running pump, or
    /// a row another session holds), ORA-01555 snapshot too old (the undo a long read needed
    /// was overwritten by concurrent writers), ORA-22924 snapshot too old (the same for a LOB
    /// version: a state document rewritten while a dispatcher's pass read it).
    pub(super) const TRANSIENT: &[i32] = &[54, 1555, 22924];
    /// The server or the site's settings cannot give this session what it needs now, whatever
    /// the message → `ConnectionLost`, the kind that is retried and never counted by the head
    /// bypass rule (a good message is never bypassed for the server's condition):
    /// ORA-00018 maximum number of sessions exceeded, ORA-00020 maximum number of processes
    /// exceeded, ORA-12518 TNS listener could not hand off client connection, ORA-12520 TNS
    /// listener could not find available handler for requested type of server, ORA-04031
    /// unable to allocate bytes of shared memory; and two that are the site's configuration,
    /// which a DBA fixes while the pump waits: ORA-02391 exceeded simultaneous
    /// SESSIONS_PER_USER limit (the profile allows fewer sessions than the pools open) and
    /// ORA-01000 maximum open cursors exceeded (`OPEN_CURSORS` below what a session keeps
    /// open; `flightstate doctor` checks it).
    pub(super) const SERVER_CONDITION: &[i32] = &[18, 20, 12518, 12520, 4031, 2391, 1000];
    /// The session or the instance went away, or the listener cannot hand a session over
    /// now → `ConnectionLost`: the message says nothing of why, and a new session (after the
    /// instance is back) applies it. Never counted by the head bypass rule.
    ///
    /// ORA-00028 your session has been killed (`ALTER SYSTEM KILL SESSION`), ORA-01012 not
    /// logged on, ORA-01033 initialization or shutdown in progress, ORA-01034 ORACLE not
    /// available, ORA-01089 immediate shutdown in progress, ORA-02396 exceeded maximum idle
    /// time, ORA-03113 end-of-file on communication channel, ORA-03114 not connected to
    /// ORACLE, ORA-03135 connection lost contact, ORA-12170 TNS connect timeout, ORA-12514
    /// TNS listener does not currently know of service (an instance starting or stopping),
    /// ORA-12516 TNS listener could not find available handler, ORA-12519 TNS no appropriate
    /// service handler found, ORA-12528 TNS all appropriate instances are blocking new
    /// connections, ORA-12537 TNS connection closed, ORA-12541 TNS no listener, ORA-12547 TNS
    /// lost contact, ORA-25408 can not safely replay call (a RAC or Data Guard failover).
    pub(super) const CONNECTION_LOST: &[i32] = &[
        28, 1012, 1033, 1034, 1089, 2396, 3113, 3114, 3135, 12170, 12514, 12516, 12519, 12528,
        12537, 12541, 12547, 25408,
    ];
    /// The errors raised by the values a statement writes, never by the server's condition
    /// → `DataRejected`: ORA-01400 cannot insert NULL, ORA-01407 cannot update to NULL,
    /// ORA-02290 check constraint violated, ORA-02292 child record found, ORA-12899 value too
    /// large for column, ORA-01401 inserted value too large, ORA-01438 value larger than the
    /// precision, ORA-01461 can bind a LONG value only for insert into a LONG column (a text
    /// bind over 4,000 bytes), ORA-01489 result of string concatenation is too long, ORA-01722
    /// invalid number, ORA-01476 divisor is zero, ORA-01841 / ORA-01847 / ORA-01858 /
    /// ORA-01861 / ORA-01830 / ORA-01843 date values and formats, ORA-29275 partial multibyte
    /// character. A value too long is refused the same way at every attempt.
    pub(super) const DATA_REJECTED: &[i32] = &[
        1400, 1407, 2290, 2292, 12899, 1401, 1438, 1461, 1489, 1722, 1476, 1841, 1847, 1858, 1861,
        1830, 1843, 29275,
    ];
    /// ORA-01013 user requested cancel of current operation (a call timeout or a break)
    /// → `Timeout`.
    pub(super) const USER_CANCEL: i32 = 1013;
    /// DPI-1010 not connected (the client knows the session is gone) → `ConnectionLost`.
    pub(super) const DPI_NOT_CONNECTED: i32 = 1010;
    /// DPI-1080 connection was closed by ORA-%d → `ConnectionLost`.
    pub(super) const DPI_CLOSED_BY_ORA: i32 = 1080;
    /// DPI-1067 call timeout of %u ms exceeded with ORA-%d → `Timeout`.
    pub(super) const DPI_CALL_TIMEOUT: i32 = 1067;
}

/// Classifies an `oracle` crate error by its kind and codes. The one mapping from Oracle
/// failures to [`FailureKind`].
pub(super) fn failure_kind(err: &oracle::Error) -> FailureKind {
    classify(err.kind(), err.oci_code(), err.dpi_code())
}

/// [`failure_kind`] on the parts, so that every arm is tested without a server.
fn classify(kind: ErrorKind, oci_code: Option<i32>, dpi_code: Option<i32>) -> FailureKind {
    use error_codes::*;
    match (kind, oci_code, dpi_code) {
        (ErrorKind::OciError, Some(code), _) => match code {
            UNIQUE_CONSTRAINT => FailureKind::Duplicate,
            PARENT_KEY_NOT_FOUND => FailureKind::MissingParent,
            CANNOT_SERIALIZE | DEADLOCK => FailureKind::Conflict,
            USER_CANCEL => FailureKind::Timeout,
            _ if TRANSIENT.contains(&code) => FailureKind::Conflict,
            _ if CONNECTION_LOST.contains(&code) || SERVER_CONDITION.contains(&code) => {
                FailureKind::ConnectionLost
            }
            _ if DATA_REJECTED.contains(&code) => FailureKind::DataRejected,
            _ => FailureKind::Other,
        },
        (ErrorKind::DpiError, _, Some(code)) => match code {
            DPI_NOT_CONNECTED | DPI_CLOSED_BY_ORA => FailureKind::ConnectionLost,
            DPI_CALL_TIMEOUT => FailureKind::Timeout,
            _ => FailureKind::Other,
        },
        _ => FailureKind::Other,
    }
}

/// Wraps a failed statement; `op` is the statement file's name.
pub(super) fn query(op: &'static str, err: oracle::Error) -> StoreError {
    StoreError::new(failure_kind(&err), op, err)
}

/// Like [`query`], as a closure for `map_err`.
pub(super) fn at(op: &'static str) -> impl Fn(oracle::Error) -> StoreError {
    move |err| query(op, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ora_codes_map_to_failure_kinds() {
        let cases = [
            (1, FailureKind::Duplicate),
            (2291, FailureKind::MissingParent),
            (8177, FailureKind::Conflict),
            (60, FailureKind::Conflict),
            (1013, FailureKind::Timeout),
            (1400, FailureKind::DataRejected),
            (12899, FailureKind::DataRejected),
            (1722, FailureKind::DataRejected),
            (942, FailureKind::Other), // table or view does not exist: configuration
        ];
        for (code, expected) in cases {
            assert_eq!(
                classify(ErrorKind::OciError, Some(code), None),
                expected,
                "ORA-{code:05}"
            );
        }
    }

    /// Each code by its own assertion, so that a failure names the code: a lost session or
    /// instance must never reach the bypass rule's count as `Other`.
    #[test]
    fn a_killed_session_a_bounced_instance_and_a_busy_listener_are_connection_lost() {
        for code in [
            28, 1012, 1033, 1034, 1089, 2396, 3113, 3114, 3135, 12170, 12514, 12516, 12519, 12528,
            12537, 12541, 12547, 25408,
        ] {
            assert_eq!(
                classify(ErrorKind::OciError, Some(code), None),
                FailureKind::ConnectionLost,
                "ORA-{code:05}"
            );
        }
    }

    #[track_caller]
    fn assert_ora(code: i32, expected: FailureKind) {
        assert_eq!(
            classify(ErrorKind::OciError, Some(code), None),
            expected,
            "ORA-{code:05}"
        );
    }

    #[test]
    fn ora_00054_resource_busy_is_a_conflict_retried() {
        assert_ora(54, FailureKind::Conflict);
    }

    #[test]
    fn ora_01555_snapshot_too_old_is_a_conflict_retried() {
        assert_ora(1555, FailureKind::Conflict);
    }

    #[test]
    fn ora_22924_lob_snapshot_too_old_is_a_conflict_retried() {
        assert_ora(22924, FailureKind::Conflict);
    }

    #[test]
    fn ora_00018_maximum_sessions_is_a_server_condition() {
        assert_ora(18, FailureKind::ConnectionLost);
    }

    #[test]
    fn ora_00020_maximum_processes_is_a_server_condition() {
        assert_ora(20, FailureKind::ConnectionLost);
    }

    #[test]
    fn ora_02391_sessions_per_user_is_the_sites_configuration_never_the_message() {
        assert_ora(2391, FailureKind::ConnectionLost);
    }

    #[test]
    fn ora_12518_listener_could_not_hand_off_is_a_server_condition() {
        assert_ora(12518, FailureKind::ConnectionLost);
    }

    #[test]
    fn ora_12520_listener_found_no_handler_is_a_server_condition() {
        assert_ora(12520, FailureKind::ConnectionLost);
    }

    #[test]
    fn ora_04031_shared_memory_is_a_server_condition() {
        assert_ora(4031, FailureKind::ConnectionLost);
    }

    #[test]
    fn ora_01000_open_cursors_is_the_sites_configuration_never_the_message() {
        assert_ora(1000, FailureKind::ConnectionLost);
    }

    #[test]
    fn a_value_too_long_for_a_bind_or_a_concatenation_is_rejected_data() {
        for code in [1461, 1489] {
            assert_eq!(
                classify(ErrorKind::OciError, Some(code), None),
                FailureKind::DataRejected,
                "ORA-{code:05}"
            );
        }
    }

    #[test]
    fn dpi_codes_map_to_failure_kinds() {
        assert_eq!(
            classify(ErrorKind::DpiError, None, Some(1010)),
            FailureKind::ConnectionLost
        );
        assert_eq!(
            classify(ErrorKind::DpiError, None, Some(1080)),
            FailureKind::ConnectionLost
        );
        assert_eq!(
            classify(ErrorKind::DpiError, None, Some(1067)),
            FailureKind::Timeout
        );
        // DPI-1047: the client library cannot be loaded; retrying cannot fix that.
        assert_eq!(
            classify(ErrorKind::DpiError, None, Some(1047)),
            FailureKind::Other
        );
    }

    #[test]
    fn errors_without_a_code_are_other() {
        for kind in [
            ErrorKind::NullValue,
            ErrorKind::InvalidBindName,
            ErrorKind::OutOfRange,
        ] {
            assert_eq!(classify(kind, None, None), FailureKind::Other);
        }
        let err = oracle::Error::new(ErrorKind::InvalidTypeConversion, "made up");
        assert_eq!(query("select_flights", err).kind(), FailureKind::Other);
    }

    #[test]
    #[allow(deprecated)] // the only public way to build an OCI error without a server
    fn a_driver_error_is_classified_through_its_accessors() {
        let err = oracle::Error::OciError(oracle::DbError::new(
            1,
            0,
            "ORA-00001: unique constraint (FS.EFFECT_CALL_IDEM_KEY_UK) violated",
            "dpiStmt_execute",
            "execute",
        ));
        assert_eq!(failure_kind(&err), FailureKind::Duplicate);
        let err = oracle::Error::OciError(oracle::DbError::new(
            3113,
            0,
            "ORA-03113: end-of-file on communication channel",
            "dpiStmt_execute",
            "execute",
        ));
        assert_eq!(
            query("lock_pipeline", err).kind(),
            FailureKind::ConnectionLost
        );
    }
}
