//! Reading flights on Oracle: the statements of the read steps of
//! [`flight_rows`](crate::store::flight_rows) (main rows, each detail table as its declaration
//! says, stored documents, digests).

use std::collections::HashMap;

use oracle::sql_type::Timestamp;

use super::super::binds::{read_time, required_time};
use super::super::errors::at;
use super::super::statements as sql;
use super::{FromOracleRow, OracleTx};
use crate::state::{FlightFields, FlightState, StoredFlight};
use crate::store::detail::{self, Detail, with_detail_table};
use crate::store::flight_rows::TableReader;
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
            .query_named(detail::statement(sql::ALL, op)?, &[("flids", &list)])
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

impl TableReader for OracleTx<'_> {
    fn read_main_rows(
        &mut self,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
    ) -> Result<Vec<i64>, StoreError> {
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
        let op = "select_state_documents";
        let list = self.id_list(flids, op)?;
        let rows = self
            .conn
            .query_named(sql::SELECT_STATE_DOCUMENTS, &[("flids", &list)])
            .map_err(at(op))?;
        rows.map(|row| {
            let row = row.map_err(at(op))?;
            Ok((
                row.get("flid").map_err(at(op))?,
                row.get("state_version").map_err(at(op))?,
                row.get("state_document").map_err(at(op))?,
            ))
        })
        .collect()
    }

    fn read_stored_digests(
        &mut self,
        flids: &[i64],
    ) -> Result<Vec<(i64, FlightDigest)>, StoreError> {
        let op = "select_flight_digests";
        let list = self.id_list(flids, op)?;
        let rows = self
            .conn
            .query_named(sql::SELECT_FLIGHT_DIGESTS, &[("flids", &list)])
            .map_err(at(op))?;
        rows.map(|row| {
            let row = row.map_err(at(op))?;
            let day: Option<Timestamp> = row.get("operation_day").map_err(at(op))?;
            let digest = FlightDigest {
                digest: row.get("state_digest").map_err(at(op))?,
                operation_day: read_time(day).map(|t| t.date()),
                state_version: row.get("state_version").map_err(at(op))?,
            };
            Ok((row.get("flid").map_err(at(op))?, digest))
        })
        .collect()
    }
}
