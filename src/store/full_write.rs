//! Writing flights, the same steps in both dialects: whole flights (main row
//! and every detail table) and flights' changes (main row and the tables a
//! change names), each set-based over many flights. A dialect supplies the
//! statements of one step ([`TableWriter`]); the order of the steps and
//! which tables each write touches are decided here once.

use super::StoreError;
use super::records::{DetailTable, FlightChange};
use super::repository::FlightRows;
use crate::FailureKind;
use crate::state::StoredFlight;

/// The steps of a flight write, as one dialect runs them.
pub(crate) trait TableWriter {
    /// Writes the main rows of `flights` (`digests[i]` is the
    /// `STATE_DIGEST` of `flights[i]`, one for each): inserted
    /// ([`FlightRows::New`], an existing row failing the statement) or
    /// upserted.
    fn write_main_rows(
        &mut self,
        flights: &[&StoredFlight],
        digests: &[String],
        rows: FlightRows,
    ) -> Result<(), StoreError>;

    /// The group delete of detail table `table` for `flids`.
    fn delete_table_rows(&mut self, table: DetailTable, flids: &[i64]) -> Result<(), StoreError>;

    /// Inserts detail table `table`'s rows of `flights`, which have none;
    /// `bulk` says they are a snapshot's (a dialect may load them another
    /// way than a few flights' rows).
    fn insert_table_rows(
        &mut self,
        table: DetailTable,
        flights: &[&StoredFlight],
        bulk: bool,
    ) -> Result<(), StoreError>;
}

/// Like [`StateTx::write_flights`](super::StateTx::write_flights).
pub(crate) fn write_flights(
    tx: &mut impl TableWriter,
    flights: &[StoredFlight],
    digests: &[String],
    rows: FlightRows,
) -> Result<(), StoreError> {
    if flights.is_empty() {
        return Ok(());
    }
    if digests.len() != flights.len() {
        return Err(StoreError::new(
            FailureKind::Other,
            "write_flights",
            format!("{} digests for {} flights", digests.len(), flights.len()),
        ));
    }
    let flights: Vec<&StoredFlight> = flights.iter().collect();
    tx.write_main_rows(&flights, digests, rows)?;
    let flids: Vec<i64> = flights.iter().map(|f| f.state.flid).collect();
    for table in DetailTable::ALL {
        // New flights have no detail rows: a flight's rows are only ever
        // written and deleted with its main row.
        if rows == FlightRows::MayExist {
            tx.delete_table_rows(table, &flids)?;
        }
        tx.insert_table_rows(table, &flights, true)?;
    }
    Ok(())
}

/// Like [`StateTx::write_flight_changes`](super::StateTx::write_flight_changes).
pub(crate) fn write_flight_changes(
    tx: &mut impl TableWriter,
    changes: &[FlightChange],
) -> Result<(), StoreError> {
    if changes.is_empty() {
        return Ok(());
    }
    let flights: Vec<&StoredFlight> = changes.iter().map(|c| &c.flight).collect();
    let digests: Vec<String> = flights.iter().map(|f| f.state.digest()).collect();
    tx.write_main_rows(&flights, &digests, FlightRows::MayExist)?;
    for table in DetailTable::ALL {
        let changed: Vec<&StoredFlight> = changes
            .iter()
            .filter(|c| c.tables.contains(&table))
            .map(|c| &c.flight)
            .collect();
        if !changed.is_empty() {
            let flids: Vec<i64> = changed.iter().map(|f| f.state.flid).collect();
            tx.delete_table_rows(table, &flids)?;
            tx.insert_table_rows(table, &changed, false)?;
        }
    }
    Ok(())
}

/// Deletes every detail row of `flids` (flights whose main rows were
/// deleted).
pub(crate) fn delete_table_rows(
    tx: &mut impl TableWriter,
    flids: &[i64],
) -> Result<(), StoreError> {
    if flids.is_empty() {
        return Ok(());
    }
    for table in DetailTable::ALL {
        tx.delete_table_rows(table, flids)?;
    }
    Ok(())
}
