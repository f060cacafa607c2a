//! Reading flight rows: readers of the state structs' columns, generated
//! from the one declaration of their columns
//! ([`flight_tables`](crate::state)), so a column added there is read here,
//! and the diesel `QueryableByName` rows of the statements.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::deserialize::{self, FromSql, QueryableByName};
use diesel::pg::Pg;
use diesel::row::{Field, NamedRow, Row, RowIndex};
use diesel::sql_types::{BigInt, Date, Integer, Nullable, Text, Timestamp};

use crate::FailureKind;
use crate::state::{FlightFields, StoredFlight, flight_tables};
use crate::store::{ProcStatus, StoreError};

/// Reads a `PROC_STATE.STATUS` value that statement `op` selected: the one
/// decoder of the column in this dialect.
pub(super) fn proc_status(code: &str, op: &'static str) -> Result<ProcStatus, StoreError> {
    ProcStatus::from_code(code).ok_or_else(|| {
        StoreError::new(
            FailureKind::Other,
            op,
            format!("unknown PROC_STATE.STATUS {code:?}"),
        )
    })
}

/// The PostgreSQL type a column kind is read as (`NUMERIC` is selected as
/// text).
macro_rules! pg_type {
    (Time) => { Nullable<Timestamp> };
    (Id) => { Nullable<BigInt> };
    (Count) => { Nullable<Integer> };
    ($text:ident) => { Nullable<Text> };
}

/// Reads a row's columns in the order its statement selects them. A column
/// is looked for from the position after the previous one on, and found
/// there for every statement of ours; only a column elsewhere falls back to
/// diesel's lookup by name, which compares the name with every column before
/// it: for the 64 columns of a main row that cost more than decoding them.
pub(super) struct Columns<'r, R> {
    row: &'r R,
    next: usize,
}

impl<'r, 'a, R: NamedRow<'a, Pg>> Columns<'r, R> {
    pub(super) fn new(row: &'r R) -> Self {
        Columns { row, next: 0 }
    }

    /// Where column `name` is, if the row has it.
    fn position(&self, name: &str) -> Option<usize> {
        let count = self.row.field_count();
        (self.next..count)
            .find(|&i| {
                Row::get(self.row, i).and_then(|f| f.field_name().map(|n| n == name)) == Some(true)
            })
            .or_else(|| RowIndex::<&str>::idx(self.row, name))
    }

    /// Column `name`, decoded as `ST`.
    pub(super) fn get<ST, T: FromSql<ST, Pg>>(&mut self, name: &str) -> deserialize::Result<T> {
        let at = self
            .position(name)
            .ok_or_else(|| format!("Column `{name}` was not present in query"))?;
        self.next = at + 1;
        Row::get_value::<ST, T, usize>(self.row, at)
    }

    /// Column `name` if the statement selects it.
    pub(super) fn get_if_selected<ST, T: FromSql<ST, Pg>>(
        &mut self,
        name: &str,
    ) -> deserialize::Result<Option<T>> {
        match self.position(name) {
            Some(at) => {
                self.next = at + 1;
                Row::get_value::<ST, T, usize>(self.row, at).map(Some)
            }
            None => Ok(None),
        }
    }
}

/// A state struct read from its columns.
pub(super) trait FromColumns: Sized {
    fn read<'a, R: NamedRow<'a, Pg>>(columns: &mut Columns<'_, R>) -> deserialize::Result<Self>;
}

macro_rules! pg_row {
    ($(#[$meta:meta])* pub struct $name:ident { $( $field:ident : $kind:ident ),* $(,)? }) => {
        impl FromColumns for crate::state::$name {
            fn read<'a, R: NamedRow<'a, Pg>>(
                columns: &mut Columns<'_, R>,
            ) -> deserialize::Result<Self> {
                Ok(crate::state::$name {
                    $( $field: columns.get::<pg_type!($kind), _>(stringify!($field))?, )*
                })
            }
        }
    };
}

flight_tables!(pg_row);

/// A main row: the scalars and the bookkeeping.
pub(super) struct MainRow(pub(super) StoredFlight);

impl QueryableByName<Pg> for MainRow {
    fn build<'a>(row: &impl NamedRow<'a, Pg>) -> deserialize::Result<Self> {
        let mut columns = Columns::new(row);
        let flid: i64 = columns.get::<BigInt, _>("flid")?;
        let fields = FlightFields::read(&mut columns)?;
        Ok(MainRow(StoredFlight {
            state: crate::state::FlightState {
                fields,
                ..crate::state::FlightState::new(flid)
            },
            operation_day: columns.get::<Nullable<Date>, Option<NaiveDate>>("operation_day")?,
            state_version: columns.get::<BigInt, _>("state_version")?,
            last_message_id: columns.get::<BigInt, _>("last_message_id")?,
            updated_at: columns.get::<Timestamp, NaiveDateTime>("updated_at")?,
        }))
    }
}

/// A detail row with its flight (and, for routes, its kind).
pub(super) struct Keyed<T> {
    pub(super) flid: i64,
    pub(super) route_kind: Option<String>,
    pub(super) item: T,
}

impl<T: FromColumns> QueryableByName<Pg> for Keyed<T> {
    fn build<'a>(row: &impl NamedRow<'a, Pg>) -> deserialize::Result<Self> {
        let mut columns = Columns::new(row);
        Ok(Keyed {
            flid: columns.get::<BigInt, _>("flid")?,
            // Only route rows select it.
            route_kind: columns.get_if_selected::<Text, String>("route_kind")?,
            item: T::read(&mut columns)?,
        })
    }
}

/// One `FLID, STATE_VERSION` pair returned by a delete.
#[derive(diesel::QueryableByName)]
pub(super) struct DeletedFlight {
    #[diesel(sql_type = BigInt)]
    pub(super) flid: i64,
    #[diesel(sql_type = BigInt)]
    pub(super) state_version: i64,
}

/// The pump lease columns of `PIPELINE_LOCK`.
#[derive(diesel::QueryableByName)]
pub(super) struct LeaseRow {
    #[diesel(sql_type = Nullable<Text>)]
    pub(super) lease_holder: Option<String>,
    #[diesel(sql_type = BigInt)]
    pub(super) lease_epoch: i64,
    #[diesel(sql_type = Nullable<Timestamp>)]
    pub(super) lease_expires_at: Option<NaiveDateTime>,
}

/// A `SCHD_GEN` row.
#[derive(diesel::QueryableByName)]
pub(super) struct LedgerRow {
    #[diesel(sql_type = BigInt)]
    pub(super) version: i64,
    #[diesel(sql_type = BigInt)]
    pub(super) last_message_id: i64,
}

/// A FLID column.
#[derive(diesel::QueryableByName)]
pub(super) struct FlidRow {
    #[diesel(sql_type = BigInt)]
    pub(super) flid: i64,
}

/// A `PROC_STATE` row.
#[derive(diesel::QueryableByName)]
pub(super) struct ProcRow {
    #[diesel(sql_type = BigInt)]
    pub(super) message_id: i64,
    #[diesel(sql_type = Text)]
    pub(super) identity_key: String,
    #[diesel(sql_type = Text)]
    pub(super) status: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub(super) error_kind: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub(super) error_text: Option<String>,
    #[diesel(sql_type = Integer)]
    pub(super) attempts: i32,
}

/// The digest columns of a `FLIGHT_SCHD` row.
#[derive(diesel::QueryableByName)]
pub(super) struct DigestRow {
    #[diesel(sql_type = BigInt)]
    pub(super) flid: i64,
    #[diesel(sql_type = Nullable<Text>)]
    pub(super) state_digest: Option<String>,
    #[diesel(sql_type = Nullable<Date>)]
    pub(super) operation_day: Option<NaiveDate>,
    #[diesel(sql_type = BigInt)]
    pub(super) state_version: i64,
}

/// The state document columns of a `FLIGHT_SCHD` row.
#[derive(diesel::QueryableByName)]
pub(super) struct DocumentRow {
    #[diesel(sql_type = BigInt)]
    pub(super) flid: i64,
    #[diesel(sql_type = BigInt)]
    pub(super) state_version: i64,
    #[diesel(sql_type = Nullable<Text>)]
    pub(super) state_document: Option<String>,
}
