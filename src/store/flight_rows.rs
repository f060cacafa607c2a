//! Reading and writing flights, the same steps in both dialects: whole
//! flights (main row and every detail table), their state documents, and
//! flights' changes (main row and the tables a change names), each
//! set-based over many flights. A dialect supplies the statements of one
//! step ([`TableReader`], [`TableWriter`]); the order of the steps, the
//! batches and which tables each write touches are decided here once.

use std::collections::HashMap;

use super::StoreError;
use super::records::{DetailTable, DetailTables, FlightDigest, FlightWrite};
use super::repository::FlightRows;
use crate::state::{StateDocument, StoredFlight};

/// How many FLIDs one read binds: large enough that a full day is a handful
/// of round trips, small enough to bound the rows one query returns.
const READ_BATCH: usize = 5_000;

/// The steps of a flight read, as one dialect runs them.
pub(crate) trait TableReader {
    /// Reads the main rows of `flids` (distinct, at most a batch) into
    /// `flights`, without detail rows; returns the FLIDs found.
    fn read_main_rows(
        &mut self,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
    ) -> Result<Vec<i64>, StoreError>;

    /// Reads detail table `table` of `flids` (all found by
    /// [`read_main_rows`](TableReader::read_main_rows)) into `flights`.
    fn read_table_rows(
        &mut self,
        table: DetailTable,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
    ) -> Result<(), StoreError>;

    /// `(FLID, STATE_VERSION, STATE_DOCUMENT)` of the stored flights among
    /// `flids` (distinct, at most a batch).
    fn read_stored_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<Vec<(i64, i64, Option<String>)>, StoreError>;

    /// The digest, day and version of the stored flights among `flids`
    /// (distinct, at most a batch), from the main rows alone.
    fn read_stored_digests(
        &mut self,
        flids: &[i64],
    ) -> Result<Vec<(i64, FlightDigest)>, StoreError>;
}

/// `flids` as the reads bind them: each FLID once, ascending (a collection
/// joined to a table returns a row once per element).
fn distinct(flids: &[i64]) -> Vec<i64> {
    let mut list = flids.to_vec();
    list.sort_unstable();
    list.dedup();
    list
}

/// Like [`StateTx::load_flights`](super::StateTx::load_flights).
pub(crate) fn read_flights(
    tx: &mut impl TableReader,
    flids: &[i64],
) -> Result<HashMap<i64, StoredFlight>, StoreError> {
    let flids = distinct(flids);
    let mut flights = HashMap::with_capacity(flids.len());
    for batch in flids.chunks(READ_BATCH) {
        let found = tx.read_main_rows(batch, &mut flights)?;
        if found.is_empty() {
            continue;
        }
        for table in DetailTable::ALL {
            tx.read_table_rows(table, &found, &mut flights)?;
        }
    }
    Ok(flights)
}

/// Like [`StateTx::flight_digests`](super::StateTx::flight_digests).
pub(crate) fn read_digests(
    tx: &mut impl TableReader,
    flids: &[i64],
) -> Result<HashMap<i64, FlightDigest>, StoreError> {
    let flids = distinct(flids);
    let mut digests = HashMap::with_capacity(flids.len());
    for batch in flids.chunks(READ_BATCH) {
        digests.extend(tx.read_stored_digests(batch)?);
    }
    Ok(digests)
}

/// Like [`StateTx::load_state_documents`](super::StateTx::load_state_documents).
pub(crate) fn read_documents(
    tx: &mut impl TableReader,
    flids: &[i64],
) -> Result<HashMap<i64, StateDocument>, StoreError> {
    let flids = distinct(flids);
    let mut documents = HashMap::with_capacity(flids.len());
    // Rows written before documents were stored: built from the tables.
    let mut unstored = Vec::new();
    for batch in flids.chunks(READ_BATCH) {
        for (flid, state_version, json) in tx.read_stored_documents(batch)? {
            match json {
                Some(json) => {
                    let document = StateDocument {
                        state_version,
                        json,
                    };
                    documents.insert(flid, document);
                }
                None => unstored.push(flid),
            }
        }
    }
    let built = read_flights(tx, &unstored)?;
    documents.extend(built.iter().map(|(flid, f)| (*flid, StateDocument::of(f))));
    Ok(documents)
}

/// The statement that writes main rows: `insert_flights` for flights read
/// absent, `upsert_flights` for flights that may have rows.
pub(crate) fn main_rows_statement(rows: FlightRows) -> &'static str {
    match rows {
        FlightRows::New => "insert_flights",
        FlightRows::MayExist => "upsert_flights",
    }
}

/// The steps of a flight write, as one dialect runs them.
pub(crate) trait TableWriter {
    /// Writes the main rows of `flights`, each with its digest: inserted
    /// ([`FlightRows::New`], an existing row failing the statement) or
    /// upserted.
    fn write_main_rows(
        &mut self,
        flights: &[&FlightWrite],
        rows: FlightRows,
    ) -> Result<(), StoreError>;

    /// The group delete of detail table `table` for `flids`.
    fn delete_table_rows(&mut self, table: DetailTable, flids: &[i64]) -> Result<(), StoreError>;

    /// Inserts detail table `table`'s rows of `flights`, which have none;
    /// `whole_flights` says they are whole flights' (a snapshot's), which a
    /// dialect may load another way than an event's few rows.
    fn insert_table_rows(
        &mut self,
        table: DetailTable,
        flights: &[&StoredFlight],
        whole_flights: bool,
    ) -> Result<(), StoreError>;
}

/// Like [`StateTx::write_flights`](super::StateTx::write_flights).
pub(crate) fn write_flights(
    tx: &mut impl TableWriter,
    writes: &[FlightWrite],
    rows: FlightRows,
) -> Result<(), StoreError> {
    if writes.is_empty() {
        return Ok(());
    }
    let all: Vec<&FlightWrite> = writes.iter().collect();
    tx.write_main_rows(&all, rows)?;
    let whole_flights = writes.iter().all(|w| w.tables == DetailTables::All);
    for table in DetailTable::ALL {
        // New flights have no detail rows: a flight's rows are only ever
        // written and deleted with its main row.
        let flights: Vec<&StoredFlight> = writes
            .iter()
            .filter(|w| rows == FlightRows::New || w.tables.contains(table))
            .map(|w| &w.flight)
            .collect();
        if flights.is_empty() {
            continue;
        }
        if rows == FlightRows::MayExist {
            let flids: Vec<i64> = flights.iter().map(|f| f.state.flid).collect();
            tx.delete_table_rows(table, &flids)?;
        }
        tx.insert_table_rows(table, &flights, whole_flights)?;
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
