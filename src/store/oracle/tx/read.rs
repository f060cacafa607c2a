//! Reading flights on Oracle: whole (main rows, then each detail table as its declaration
//! says), their digests, their state documents.

use std::collections::HashMap;

use oracle::sql_type::Timestamp;

use super::super::binds::{read_time, required_time};
use super::super::errors::at;
use super::super::statements as sql;
use super::{FromOracleRow, OracleTx, READ_BATCH, distinct};
use crate::state::{FlightFields, FlightState, StateDocument, StoredFlight};
use crate::store::detail::{Detail, with_detail_table};
use crate::store::{DetailTable, FlightDigest, StoreError};

/// Reads one detail table of `flids` into the loaded flights.
struct ReadTable<'t, 'c> {
    tx: &'t OracleTx<'c>,
    flids: &'t [i64],
    flights: &'t mut HashMap<i64, StoredFlight>,
}

impl ReadTable<'_, '_> {
    fn visit<D: Detail + FromOracleRow>(self) -> Result<(), StoreError> {
        let op = D::SELECT;
        let list = self.tx.id_list(self.flids, op)?;
        let rows = self
            .tx
            .conn
            .query_named(sql::named(op)?, &[("flids", &list)])
            .map_err(at(op))?;
        for row in rows {
            let row = row.map_err(at(op))?;
            let flid: i64 = row.get("flid").map_err(at(op))?;
            let route_kind: Option<String> = if D::has_route_kind() {
                row.get("route_kind").map_err(at(op))?
            } else {
                None
            };
            let item = D::from_row(&row).map_err(at(op))?;
            if let Some(flight) = self.flights.get_mut(&flid) {
                D::rows_mut(&mut flight.state, route_kind.as_deref()).push(item);
            }
        }
        Ok(())
    }
}

impl OracleTx<'_> {
    pub(super) fn read_flights(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StoredFlight>, StoreError> {
        let flids = distinct(flids);
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
        let op = "select_flights";
        let list = self.id_list(flids, op)?;
        let rows = self
            .conn
            .query_named(sql::SELECT_FLIGHTS, &[("flids", &list)])
            .map_err(at(op))?;
        let mut found = Vec::new();
        for row in rows {
            let row = row.map_err(at(op))?;
            let flid: i64 = row.get("flid").map_err(at(op))?;
            let fields = FlightFields::from_row(&row).map_err(at(op))?;
            let day: Option<Timestamp> = row.get("operation_day").map_err(at(op))?;
            let updated: Timestamp = row.get("updated_at").map_err(at(op))?;
            let stored = StoredFlight {
                state: FlightState {
                    fields,
                    ..FlightState::new(flid)
                },
                operation_day: read_time(day).map(|t| t.date()),
                state_version: row.get("state_version").map_err(at(op))?,
                last_message_id: row.get("last_message_id").map_err(at(op))?,
                updated_at: required_time(updated, op)?,
            };
            found.push(flid);
            flights.insert(flid, stored);
        }
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
        let op = "select_flight_digests";
        let flids = distinct(flids);
        let mut digests = HashMap::with_capacity(flids.len());
        for batch in flids.chunks(READ_BATCH) {
            let list = self.id_list(batch, op)?;
            let rows = self
                .conn
                .query_named(sql::SELECT_FLIGHT_DIGESTS, &[("flids", &list)])
                .map_err(at(op))?;
            for row in rows {
                let row = row.map_err(at(op))?;
                let flid: i64 = row.get("flid").map_err(at(op))?;
                let day: Option<Timestamp> = row.get("operation_day").map_err(at(op))?;
                let digest = FlightDigest {
                    digest: row.get("state_digest").map_err(at(op))?,
                    operation_day: read_time(day).map(|t| t.date()),
                    state_version: row.get("state_version").map_err(at(op))?,
                };
                digests.insert(flid, digest);
            }
        }
        Ok(digests)
    }

    pub(super) fn read_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StateDocument>, StoreError> {
        let op = "select_state_documents";
        let flids = distinct(flids);
        let mut documents = HashMap::with_capacity(flids.len());
        // Rows written before documents were stored: built from the tables.
        let mut unstored = Vec::new();
        for batch in flids.chunks(READ_BATCH) {
            let list = self.id_list(batch, op)?;
            let rows = self
                .conn
                .query_named(sql::SELECT_STATE_DOCUMENTS, &[("flids", &list)])
                .map_err(at(op))?;
            for row in rows {
                let row = row.map_err(at(op))?;
                let flid: i64 = row.get("flid").map_err(at(op))?;
                let json: Option<String> = row.get("state_document").map_err(at(op))?;
                match json {
                    Some(json) => {
                        let document = StateDocument {
                            state_version: row.get("state_version").map_err(at(op))?,
                            json,
                        };
                        documents.insert(flid, document);
                    }
                    None => unstored.push(flid),
                }
            }
        }
        let built = self.read_flights(&unstored)?;
        documents.extend(built.iter().map(|(flid, f)| (*flid, StateDocument::of(f))));
        Ok(documents)
    }
}
