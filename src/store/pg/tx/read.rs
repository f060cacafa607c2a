//! Reading flights on PostgreSQL: whole (main rows, then each detail table
//! as its declaration says), their digests, their state documents.

use std::collections::HashMap;

use diesel::RunQueryDsl;
use diesel::sql_types::{Array, BigInt};

use super::super::errors;
use super::super::prepared::Prepare;
use super::super::rows::{DigestRow, DocumentRow, FromColumns, Keyed, MainRow};
use super::super::statements as sql;
use super::{PgTx, READ_BATCH, statement};
use crate::state::{StateDocument, StoredFlight};
use crate::store::detail::{Detail, with_detail_table};
use crate::store::{DetailTable, FlightDigest, StoreError};

/// `flids` as the reads join them: each FLID once, in index order.
fn as_list(flids: &[i64]) -> Vec<i64> {
    let mut list = flids.to_vec();
    list.sort_unstable();
    list.dedup();
    list
}

/// Reads one detail table of `flids` into the loaded flights.
struct ReadTable<'t, 'c> {
    tx: &'t mut PgTx<'c>,
    flids: &'t [i64],
    flights: &'t mut HashMap<i64, StoredFlight>,
}

impl ReadTable<'_, '_> {
    fn visit<D: Detail + FromColumns>(self) -> Result<(), StoreError> {
        let rows: Vec<Keyed<D>> = statement(sql::named(D::SELECT)?)
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

impl PgTx<'_> {
    pub(super) fn read_flights(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StoredFlight>, StoreError> {
        let flids = as_list(flids);
        let mut flights = HashMap::with_capacity(flids.len());
        for batch in flids.chunks(READ_BATCH) {
            self.read_batch(batch, &mut flights)?;
        }
        Ok(flights)
    }

    fn read_batch(
        &mut self,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
    ) -> Result<(), StoreError> {
        let mains: Vec<MainRow> = statement(sql::SELECT_FLIGHTS)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("select_flights", e))?;
        let found: Vec<i64> = mains.iter().map(|m| m.0.state.flid).collect();
        flights.extend(mains.into_iter().map(|m| (m.0.state.flid, m.0)));
        if found.is_empty() {
            return Ok(());
        }
        for table in DetailTable::ALL {
            let read = ReadTable {
                tx: self,
                flids: &found,
                flights,
            };
            with_detail_table!(table, read)?;
        }
        Ok(())
    }

    pub(super) fn read_digests(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, FlightDigest>, StoreError> {
        let mut digests = HashMap::with_capacity(flids.len());
        for batch in flids.chunks(READ_BATCH) {
            let rows: Vec<DigestRow> = statement(sql::SELECT_FLIGHT_DIGESTS)
                .bind::<Array<BigInt>, _>(batch.to_vec())
                .prepared()
                .load(self.conn)
                .map_err(|e| errors::query("select_flight_digests", e))?;
            digests.extend(rows.into_iter().map(|r| {
                let digest = FlightDigest {
                    digest: r.state_digest,
                    operation_day: r.operation_day,
                    state_version: r.state_version,
                };
                (r.flid, digest)
            }));
        }
        Ok(digests)
    }

    pub(super) fn read_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StateDocument>, StoreError> {
        let flids = as_list(flids);
        let mut documents = HashMap::with_capacity(flids.len());
        // Rows written before documents were stored: built from the tables.
        let mut unstored = Vec::new();
        for batch in flids.chunks(READ_BATCH) {
            let rows: Vec<DocumentRow> = statement(sql::SELECT_STATE_DOCUMENTS)
                .bind::<Array<BigInt>, _>(batch.to_vec())
                .prepared()
                .load(self.conn)
                .map_err(|e| errors::query("select_state_documents", e))?;
            for row in rows {
                match row.state_document {
                    Some(json) => {
                        let document = StateDocument {
                            state_version: row.state_version,
                            json,
                        };
                        documents.insert(row.flid, document);
                    }
                    None => unstored.push(row.flid),
                }
            }
        }
        let built = self.read_flights(&unstored)?;
        documents.extend(built.iter().map(|(flid, f)| (*flid, StateDocument::of(f))));
        Ok(documents)
    }
}
