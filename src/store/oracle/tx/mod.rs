//! `OracleTx`: the repository operations inside one Oracle transaction, in three parts:
//! `ledger` ([`StateTx`](crate::store::StateTx): the lock, the snapshot ledger and list,
//! outbox rows, outcomes, version floors), `read` and `write` (the steps of
//! [`flight_rows`](crate::store::flight_rows) that read and write flights). Every statement
//! comes from `statements`; every value is a typed named bind.
//!
//! Set-based, as on PostgreSQL, within what 11g offers: writes of many rows are array DML
//! (the batch API, one row per batch entry, [`WRITE_BATCH`](super::binds::WRITE_BATCH) rows
//! per round trip); reads and deletes over many FLIDs bind them as one
//! `FLIGHTSTATE_ID_LIST` collection.

mod ledger;
mod read;
mod write;

use std::collections::HashSet;

use oracle::sql_type::Timestamp;
use oracle::{Connection, Row};

use super::binds::read_time;
use crate::state::flight_tables;
use crate::store::StoreError;

/// A state transaction on Oracle.
pub struct OracleTx<'c> {
    conn: &'c Connection,
    /// The id-list collection type as this session must name it (see `conn::OracleUrl`).
    id_list_type: &'c str,
}

impl<'c> OracleTx<'c> {
    pub(super) fn new(conn: &'c Connection, id_list_type: &'c str) -> OracleTx<'c> {
        OracleTx { conn, id_list_type }
    }

    /// `ids` as one `FLIGHTSTATE_ID_LIST` collection bind.
    pub(super) fn id_list(
        &self,
        ids: &[i64],
        op: &'static str,
    ) -> Result<oracle::sql_type::Collection, StoreError> {
        super::binds::id_list(self.conn, self.id_list_type, ids, op)
    }

    /// The transaction's session, for the operations in sibling modules.
    pub(super) fn conn(&self) -> &'c Connection {
        self.conn
    }
}

/// A row type read by column name (names are the state structs' field names; Oracle matches
/// them without regard to case).
pub(super) trait FromOracleRow: Sized {
    fn from_row(row: &Row) -> oracle::Result<Self>;
}

macro_rules! oracle_get {
    (Time, $row:expr, $name:expr) => {
        read_time($row.get::<&str, Option<Timestamp>>($name)?)
    };
    ($kind:ident, $row:expr, $name:expr) => {
        $row.get::<&str, _>($name)?
    };
}

macro_rules! oracle_row {
    ($(#[$meta:meta])* pub struct $name:ident { $( $field:ident : $kind:ident ),* $(,)? }) => {
        impl FromOracleRow for crate::state::$name {
            fn from_row(row: &Row) -> oracle::Result<Self> {
                Ok(crate::state::$name {
                    $( $field: oracle_get!($kind, row, stringify!($field)), )*
                })
            }
        }
    };
}

flight_tables!(oracle_row);

/// Distinct ids in first-seen order: a collection bind joined to a table returns a row once
/// per element, where PostgreSQL's `= ANY` returns it once.
fn distinct(ids: &[i64]) -> Vec<i64> {
    let mut seen = HashSet::with_capacity(ids.len());
    ids.iter().copied().filter(|id| seen.insert(*id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_keeps_first_seen_order() {
        assert_eq!(distinct(&[3, 1, 3, 2, 1]), vec![3, 1, 2]);
    }
}
