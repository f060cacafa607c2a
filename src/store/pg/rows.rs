//! Reading flight rows: diesel `QueryableByName` for the state structs,
//! generated from the one declaration of their columns
//! ([`flight_tables`](crate::state)), so a column added there is read here.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::deserialize::{self, QueryableByName};
use diesel::pg::Pg;
use diesel::row::NamedRow;
use diesel::sql_types::{BigInt, Date, Integer, Nullable, Text, Timestamp};

use crate::state::{FlightFields, StoredFlight, flight_tables};

/// The PostgreSQL type a column kind is read as (`NUMERIC` is selected as
/// text).
macro_rules! pg_type {
    (Time) => { Nullable<Timestamp> };
    (Id) => { Nullable<BigInt> };
    (Count) => { Nullable<Integer> };
    ($text:ident) => { Nullable<Text> };
}

macro_rules! pg_row {
    ($(#[$meta:meta])* pub struct $name:ident { $( $field:ident : $kind:ident ),* $(,)? }) => {
        impl QueryableByName<Pg> for crate::state::$name {
            fn build<'a>(row: &impl NamedRow<'a, Pg>) -> deserialize::Result<Self> {
                Ok(crate::state::$name {
                    $( $field: NamedRow::get::<pg_type!($kind), _>(row, stringify!($field))?, )*
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
        let flid: i64 = NamedRow::get::<BigInt, _>(row, "flid")?;
        let fields = FlightFields::build(row)?;
        Ok(MainRow(StoredFlight {
            state: crate::state::FlightState {
                fields,
                ..crate::state::FlightState::new(flid)
            },
            operation_day: NamedRow::get::<Nullable<Date>, Option<NaiveDate>>(
                row,
                "operation_day",
            )?,
            state_version: NamedRow::get::<BigInt, _>(row, "state_version")?,
            last_message_id: NamedRow::get::<BigInt, _>(row, "last_message_id")?,
            updated_at: NamedRow::get::<Timestamp, NaiveDateTime>(row, "updated_at")?,
        }))
    }
}

/// A detail row with its flight (and, for routes, its kind).
pub(super) struct Keyed<T> {
    pub(super) flid: i64,
    pub(super) route_kind: Option<String>,
    pub(super) item: T,
}

impl<T: QueryableByName<Pg>> QueryableByName<Pg> for Keyed<T> {
    fn build<'a>(row: &impl NamedRow<'a, Pg>) -> deserialize::Result<Self> {
        Ok(Keyed {
            flid: NamedRow::get::<BigInt, _>(row, "flid")?,
            // Only route rows select it; others leave it out.
            route_kind: NamedRow::get::<Text, String>(row, "route_kind").ok(),
            item: T::build(row)?,
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
