//! `PgTx`: the repository operations inside one PostgreSQL transaction, in
//! three parts: `ledger` ([`StateTx`](crate::store::StateTx): the lock, the
//! snapshot ledger and list, outbox rows, outcomes, version floors), `read`
//! and `write` (the steps of [`flight_rows`](crate::store::flight_rows) that
//! read and write flights). Every statement comes from `statements`; every
//! value is bound.

mod ledger;
mod read;
mod write;

use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::{PgConnection, RunQueryDsl, sql_query};

use super::copy::{DetailRows, NewFlights};
use super::errors;
use super::prepared::Prepare;
use crate::store::StoreError;

pub(super) use write::copy_statements;

/// A state transaction on PostgreSQL.
pub struct PgTx<'c> {
    conn: &'c mut PgConnection,
    new_flights: NewFlights,
    detail_rows: DetailRows,
}

impl<'c> PgTx<'c> {
    pub(super) fn new(
        conn: &'c mut PgConnection,
        new_flights: NewFlights,
        detail_rows: DetailRows,
    ) -> PgTx<'c> {
        PgTx {
            conn,
            new_flights,
            detail_rows,
        }
    }

    /// The transaction's connection, for the operations implemented in
    /// sibling modules (`lease`, `journal`).
    pub(super) fn conn(&mut self) -> &mut PgConnection {
        self.conn
    }

    fn execute(&mut self, query: Boxed, op: &'static str) -> Result<usize, StoreError> {
        query
            .prepared()
            .execute(self.conn)
            .map_err(|e| errors::query(op, e))
    }
}

type Boxed = BoxedSqlQuery<'static, Pg, SqlQuery>;

fn statement(text: &'static str) -> Boxed {
    sql_query(text).into_boxed()
}
