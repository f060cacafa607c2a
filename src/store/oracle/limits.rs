//! What one session may hold open, and what `flightstate doctor` checks of it: the
//! statement cache sized to fit the instance's `OPEN_CURSORS` (every cached statement keeps
//! a cursor open; past the limit a statement fails with ORA-01000), and whether the user may
//! call `SYS.DBMS_LOCK` (which `flightstate migrate` needs and 11.2 does not grant to PUBLIC).

use oracle::Connection;

use super::binds::Text;
use super::errors::at;
use super::statements as sql;
use crate::store::StoreError;

/// Cursors a session needs besides its statement cache: the result set being read while
/// another statement runs, ODPI-C's own, and the cursors the PL/SQL of a call keeps
/// (`DBMS_LOCK`).
pub(super) const CURSOR_HEADROOM: u32 = 16;

/// 11.2's default `OPEN_CURSORS`, assumed when the instance's cannot be read.
pub(super) const DEFAULT_OPEN_CURSORS: u32 = 50;

/// The fewest statements worth caching: below this, `OPEN_CURSORS` is too low for the
/// pipeline, and `flightstate doctor` fails it.
pub(super) const MIN_CACHED_STATEMENTS: u32 = 16;

/// A statement cache holding every statement of the dialect, and a few for the driver's
/// own (STYLE §3.6): what a session caches when `OPEN_CURSORS` allows.
pub(super) fn every_statement() -> u32 {
    u32::try_from(sql::ALL.len())
        .unwrap_or(u32::MAX)
        .saturating_add(8)
}

/// The statement cache of a session on an instance whose `OPEN_CURSORS` is `open_cursors`
/// (`None`: not readable, taken as 11.2's default): every statement when it fits, else as many
/// as fit beside [`CURSOR_HEADROOM`]. A statement past the cache is parsed again at its next
/// use (a soft parse), never refused.
pub(super) fn statement_cache_size(open_cursors: Option<u32>) -> u32 {
    let limit = open_cursors.unwrap_or(DEFAULT_OPEN_CURSORS);
    every_statement().min(limit.saturating_sub(CURSOR_HEADROOM))
}

/// The `OPEN_CURSORS` a session needs for every statement to stay cached.
pub(super) fn open_cursors_for_every_statement() -> u32 {
    every_statement() + CURSOR_HEADROOM
}

/// The instance's `OPEN_CURSORS`, or `None` when this user cannot read `V$PARAMETER`.
pub(super) fn open_cursors(conn: &Connection) -> Option<u32> {
    conn.query_row_as_named::<i64>(
        sql::SELECT_OPEN_CURSORS,
        &[("parameter_name", &Text(Some("open_cursors")))],
    )
    .ok()
    .and_then(|n| u32::try_from(n).ok())
}

/// What a session of the state database may hold, for `flightstate doctor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// The instance's `OPEN_CURSORS`; `None` when the user cannot read `V$PARAMETER`.
    pub open_cursors: Option<u32>,
    /// The statements each session caches under it.
    pub cached_statements: u32,
    /// The statements of the dialect (and the driver's few): all cached when
    /// `open_cursors` is at least [`SessionLimits::open_cursors_wanted`].
    pub every_statement: u32,
    /// The `OPEN_CURSORS` at which every statement stays cached.
    pub open_cursors_wanted: u32,
    /// The fewest statements the pipeline should cache.
    pub min_cached_statements: u32,
    /// Whether the user may execute `SYS.DBMS_LOCK`.
    pub dbms_lock: bool,
    /// Whether the URL connects as the schema owner (the user `flightstate migrate` runs as).
    pub is_owner: bool,
}

/// Reads the [`SessionLimits`] of `conn`'s instance and user, writing nothing; `is_owner`:
/// whether the session's user is the schema owner.
pub(super) fn read(conn: &Connection, is_owner: bool) -> Result<SessionLimits, StoreError> {
    let open_cursors = open_cursors(conn);
    let op = "select_object_access";
    let dbms_lock: i64 = conn
        .query_row_as_named(
            sql::SELECT_OBJECT_ACCESS,
            &[
                ("owner", &Text(Some("SYS"))),
                ("object_name", &Text(Some("DBMS_LOCK"))),
                ("object_type", &Text(Some("PACKAGE"))),
            ],
        )
        .map_err(at(op))?;
    Ok(SessionLimits {
        open_cursors,
        cached_statements: statement_cache_size(open_cursors),
        every_statement: every_statement(),
        open_cursors_wanted: open_cursors_for_every_statement(),
        min_cached_statements: MIN_CACHED_STATEMENTS,
        dbms_lock: dbms_lock > 0,
        is_owner,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_statement_is_cached_where_open_cursors_allows() {
        let all = every_statement();
        assert!(all > 100, "{all}");
        assert_eq!(statement_cache_size(Some(300)), all);
        assert_eq!(
            statement_cache_size(Some(open_cursors_for_every_statement())),
            all
        );
    }

    #[test]
    fn the_cache_fits_under_a_low_open_cursors() {
        // 11.2's default: the cache leaves the headroom free, and never reaches the limit.
        assert_eq!(statement_cache_size(Some(50)), 50 - CURSOR_HEADROOM);
        assert_eq!(statement_cache_size(Some(100)), 100 - CURSOR_HEADROOM);
        for open_cursors in [0, 10, 50, 100, 140, 150] {
            assert!(
                statement_cache_size(Some(open_cursors)) + CURSOR_HEADROOM
                    <= open_cursors.max(CURSOR_HEADROOM),
                "OPEN_CURSORS {open_cursors}"
            );
        }
        assert_eq!(statement_cache_size(Some(5)), 0);
    }

    #[test]
    fn an_unreadable_open_cursors_is_taken_for_the_default() {
        assert_eq!(
            statement_cache_size(None),
            DEFAULT_OPEN_CURSORS - CURSOR_HEADROOM
        );
    }
}
