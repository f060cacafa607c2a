//! Reading flights on PostgreSQL: the statements of the read steps of
//! [`flight_rows`](crate::store::flight_rows) (main rows, each detail table
//! as its declaration says, stored documents), and the narrow read of
//! digests.

use std::collections::HashMap;

use diesel::RunQueryDsl;
use diesel::sql_types::{Array, BigInt};

use super::super::errors;
use super::super::prepared::Prepare;
use super::super::rows::{DigestRow, DocumentRow, FromColumns, Keyed, MainRow};
use super::super::statements as sql;
use super::{PgTx, statement};
use crate::state::StoredFlight;
use crate::store::detail::{self, Detail, with_detail_table};
use crate::store::flight_rows::TableReader;
use crate::store::{DetailTable, FlightDigest, StoreError};

/// Reads one detail table of `flids` into the loaded flights.
struct ReadTable<'t, 'c> {
    tx: &'t mut PgTx<'c>,
    flids: &'t [i64],
    flights: &'t mut HashMap<i64, StoredFlight>,
}

impl ReadTable<'_, '_> {
    fn visit<D: Detail + FromColumns>(self) -> Result<(), StoreError> {
        let rows: Vec<Keyed<D>> = statement(detail::statement(sql::ALL, D::SELECT)?)
            .bind::<Array<BigInt>, _>(self.flids.to_vec())
            .prepared()
            .load(self.tx.conn)
            .map_err(|e| errors::query(D::SELECT, e))?;
        for row in rows {
            if let Some(flight) = self.flights.get_mut(&row.flid) {
                D::rows_mut(&mut flight.state, row.route_kind.as_deref()).push(row.item);
            }
        }
        Ok(())
    }
}

impl TableReader for PgTx<'_> {
    fn read_main_rows(
        &mut self,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
    ) -> Result<Vec<i64>, StoreError> {
        let mains: Vec<MainRow> = statement(sql::SELECT_FLIGHTS)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("select_flights", e))?;
        let found = mains.iter().map(|m| m.0.state.flid).collect();
        flights.extend(mains.into_iter().map(|m| (m.0.state.flid, m.0)));
        Ok(found)
    }

    fn read_table_rows(
        &mut self,
        table: DetailTable,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
    ) -> Result<(), StoreError> {
        let read = ReadTable {
            tx: self,
            flids,
            flights,
        };
        with_detail_table!(table, read)
    }

    fn read_stored_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<Vec<(i64, i64, Option<String>)>, StoreError> {
        let rows: Vec<DocumentRow> = statement(sql::SELECT_STATE_DOCUMENTS)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("select_state_documents", e))?;
        Ok(rows
            .into_iter()
            .map(|r| (r.flid, r.state_version, r.state_document))
            .collect())
    }

    fn read_stored_digests(
        &mut self,
        flids: &[i64],
    ) -> Result<Vec<(i64, FlightDigest)>, StoreError> {
        let rows: Vec<DigestRow> = statement(sql::SELECT_FLIGHT_DIGESTS)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("select_flight_digests", e))?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let digest = FlightDigest {
                    digest: r.state_digest,
                    operation_day: r.operation_day,
                    state_version: r.state_version,
                };
                (r.flid, digest)
            })
            .collect())
    }
}
