//! The Oracle state database's session limits, for `flightstate doctor`: `OPEN_CURSORS`
//! against the statement cache, and the `EXECUTE ON SYS.DBMS_LOCK` grant `flightstate
//! migrate` needs (docs/oracle.md, "First run at a site").

use flightstate::store::oracle::{SessionLimits, session_limits};

use super::{Report, Verdict};

/// Checks the session limits of the Oracle state database at `url` (read only).
pub(super) fn session_checks(report: &mut Report, url: &str) {
    match session_limits(url) {
        Ok(limits) => {
            report.line("open cursors", open_cursors(&limits));
            report.line("DBMS_LOCK", dbms_lock(&limits));
        }
        Err(e) => report.line(
            "session limits",
            Verdict::Fail(format!("cannot read them: {e:#}")),
        ),
    }
}

fn open_cursors(limits: &SessionLimits) -> Verdict {
    let wanted = limits.open_cursors_wanted;
    match limits.open_cursors {
        None => Verdict::Warn(format!(
            "this user cannot read V$PARAMETER, so each session caches {} statements, which fits \
             11.2's default OPEN_CURSORS of 50; check `SHOW PARAMETER OPEN_CURSORS` is at least \
             {wanted} and grant SELECT ON SYS.V_$PARAMETER to cache all {}",
            limits.cached_statements, limits.every_statement
        )),
        Some(n) if limits.cached_statements >= limits.every_statement => Verdict::Ok(format!(
            "OPEN_CURSORS {n}: each session caches all {} statements",
            limits.every_statement
        )),
        Some(n) if limits.cached_statements >= limits.min_cached_statements => {
            Verdict::Warn(format!(
                "OPEN_CURSORS {n}: each session caches {} of {} statements (the rest are parsed \
                 again at each use); raise OPEN_CURSORS to {wanted} to cache all",
                limits.cached_statements, limits.every_statement
            ))
        }
        Some(n) => Verdict::Fail(format!(
            "OPEN_CURSORS {n} leaves room for {} cached statements: ALTER SYSTEM SET \
             OPEN_CURSORS = {wanted} (at least {} for the pipeline)",
            limits.cached_statements,
            limits.min_cached_statements + (wanted - limits.every_statement)
        )),
    }
}

fn dbms_lock(limits: &SessionLimits) -> Verdict {
    match (limits.dbms_lock, limits.is_owner) {
        (true, _) => Verdict::Ok(
            "EXECUTE on SYS.DBMS_LOCK: `flightstate migrate` can serialise its runs".to_owned(),
        ),
        (false, true) => Verdict::Fail(
            "no EXECUTE on SYS.DBMS_LOCK (11.2 does not grant it to PUBLIC), which `flightstate \
             migrate` needs: as a DBA, GRANT EXECUTE ON SYS.DBMS_LOCK TO this user, or run \
             migrations_oracle/ by hand in SQL*Plus"
                .to_owned(),
        ),
        (false, false) => Verdict::Ok(
            "not needed by this application user: `flightstate migrate` runs as the schema \
             owner, who needs EXECUTE ON SYS.DBMS_LOCK"
                .to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(open_cursors: Option<u32>, cached: u32) -> SessionLimits {
        SessionLimits {
            open_cursors,
            cached_statements: cached,
            every_statement: 140,
            open_cursors_wanted: 156,
            min_cached_statements: 16,
            dbms_lock: false,
            is_owner: true,
        }
    }

    #[test]
    fn open_cursors_below_the_cache_warns_and_far_below_fails() {
        assert!(matches!(
            open_cursors(&limits(Some(300), 140)),
            Verdict::Ok(_)
        ));
        let Verdict::Warn(text) = open_cursors(&limits(Some(50), 34)) else {
            panic!("a low OPEN_CURSORS is a warning");
        };
        assert!(text.contains("raise OPEN_CURSORS to 156"), "{text}");
        assert!(matches!(
            open_cursors(&limits(Some(20), 4)),
            Verdict::Fail(_)
        ));
        assert!(matches!(open_cursors(&limits(None, 34)), Verdict::Warn(_)));
    }

    #[test]
    fn the_owner_without_dbms_lock_fails_and_an_application_user_does_not() {
        let Verdict::Fail(text) = dbms_lock(&limits(None, 34)) else {
            panic!("the owner needs DBMS_LOCK");
        };
        assert!(text.contains("GRANT EXECUTE ON SYS.DBMS_LOCK"), "{text}");
        let app = SessionLimits {
            is_owner: false,
            ..limits(None, 34)
        };
        assert!(matches!(dbms_lock(&app), Verdict::Ok(_)));
        let granted = SessionLimits {
            dbms_lock: true,
            ..limits(None, 34)
        };
        assert!(matches!(dbms_lock(&granted), Verdict::Ok(_)));
    }
}
