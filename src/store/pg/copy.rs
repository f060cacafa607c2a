//! New flights' main rows by `COPY … FROM STDIN WITH (FORMAT binary)`,
//! encoded here by hand ([`NewFlights::Copy`], the
//! default; `insert_flights` is the plain path): diesel's `COPY` from an
//! `Insertable` would want a Rust type for `numeric` (diesel's `bigdecimal`
//! feature) and every row built before the first is sent, so
//! [`MainRows`] names the columns of
//! `schema.rs`'s `flight_schd` in the state's order and the rows are
//! written in PostgreSQL's binary format, `numeric` included, and streamed:
//! PostgreSQL stores the first rows while the last are still being encoded,
//! where `insert_flights`' array binds are built whole first
//! (`docs/benchmarks.md`, "COPY encoders").

use chrono::{NaiveDate, NaiveDateTime};
use diesel::PgConnection;
use diesel::pg::{CopyFormat, CopyTarget, Pg};
use diesel::query_builder::{AstPass, QueryFragment};

use super::errors;
use super::schema::flight_schd;
use crate::FailureKind;
use crate::state::{ColumnValues, FlightFields, TableRow, state_document};
use crate::store::{FlightWrite, StoreError};

/// How new flights' main rows are written (`FlightRows::New`); either way a
/// FLID that has a row fails the write and is not overwritten.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NewFlights {
    /// `COPY … FROM STDIN` in PostgreSQL's binary format, encoded by hand
    /// and streamed (`store/pg/copy.rs`): the faster, kept for the time a
    /// day's first snapshot takes (`docs/benchmarks.md`, "COPY encoders").
    #[default]
    Copy,
    /// `insert_flights`: the plain statement, array binds built whole.
    Insert,
}

/// How a snapshot's detail rows are written (a flight event's few rows are
/// always inserted by statement).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DetailRows {
    /// diesel's binary `COPY … FROM STDIN` (`from_insertable`), one per
    /// table: the faster for a day's rows (`docs/benchmarks.md`, "What the
    /// write paths buy").
    #[default]
    Copy,
    /// Each table's insert statement, array binds built whole: the plain
    /// path, as for a flight event.
    Insert,
}

/// The binary COPY signature, then flags and header extension length (0).
const COPY_BINARY_HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";

/// The trailer that ends a binary COPY's rows.
const COPY_BINARY_TRAILER: &[u8] = &(-1i16).to_be_bytes();

/// How much encoded data is handed to the connection at a time: enough to
/// keep PostgreSQL busy, little enough to start it early.
const FLUSH_BYTES: usize = 64 * 1024;

/// One field of a binary COPY row: its length and bytes, or -1 for NULL.
fn copy_field(
    out: &mut Vec<u8>,
    value: Option<&(impl AsRef<[u8]> + ?Sized)>,
) -> Result<(), &'static str> {
    match value {
        Some(value) => {
            let bytes = value.as_ref();
            let len = i32::try_from(bytes.len()).map_err(|_| "a value longer than COPY takes")?;
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(bytes);
        }
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
    }
    Ok(())
}

/// The fields of row `row` of `columns`, in order.
///
/// # Errors
///
/// A value longer than COPY takes, or a decimal that is no decimal.
fn copy_columns(
    out: &mut Vec<u8>,
    columns: &[ColumnValues],
    row: usize,
) -> Result<(), &'static str> {
    for column in columns {
        match column {
            ColumnValues::Text(v) => copy_field(out, v[row].as_deref().map(str::as_bytes))?,
            ColumnValues::Decimal(v) => match v[row].as_deref() {
                Some(text) => copy_field(out, Some(&pg_numeric(text)?))?,
                None => copy_field(out, None::<&[u8]>)?,
            },
            ColumnValues::Time(v) => {
                copy_field(out, v[row].map(|t| pg_timestamp(t).to_be_bytes()).as_ref())?;
            }
            ColumnValues::Id(v) => copy_field(out, v[row].map(i64::to_be_bytes).as_ref())?,
            ColumnValues::Count(v) => copy_field(out, v[row].map(i32::to_be_bytes).as_ref())?,
        }
    }
    Ok(())
}

/// A `timestamp` as PostgreSQL sends and receives it: microseconds since
/// 2000-01-01 00:00:00.
fn pg_timestamp(time: NaiveDateTime) -> i64 {
    /// 2000-01-01 00:00:00 in microseconds since 1970-01-01.
    const PG_EPOCH_MICROS: i64 = 946_684_800_000_000;
    time.and_utc().timestamp_micros() - PG_EPOCH_MICROS
}

/// A `date` as PostgreSQL sends and receives it: days since 2000-01-01.
fn pg_date(day: NaiveDate) -> i32 {
    /// 2000-01-01 in days since 0001-01-01 (chrono's day 1).
    const PG_EPOCH_DAYS: i32 = 730_120;
    chrono::Datelike::num_days_from_ce(&day) - PG_EPOCH_DAYS
}

/// A decimal's canonical text (`12.50`, `-3`, `.5`) as PostgreSQL's binary
/// `numeric`: digit count, weight, sign and display scale, then base-10000
/// digits, the first and last non-zero (what `numeric_send` writes).
///
/// # Errors
///
/// Text that is not an optional sign, digits and an optional fraction.
fn pg_numeric(text: &str) -> Result<Vec<u8>, &'static str> {
    const NOT_A_DECIMAL: &str = "a decimal value that is no decimal";
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return Err(NOT_A_DECIMAL);
    }
    let scale = u16::try_from(fraction.len()).map_err(|_| NOT_A_DECIMAL)?;
    let whole = whole.trim_start_matches('0');
    // Groups of four digits on either side of the point: the whole part is
    // padded on the left, the fraction on the right.
    let pad_left = (4 - whole.len() % 4) % 4;
    let pad_right = (4 - fraction.len() % 4) % 4;
    let aligned: Vec<u8> = std::iter::repeat_n(b'0', pad_left)
        .chain(whole.bytes())
        .chain(fraction.bytes())
        .chain(std::iter::repeat_n(b'0', pad_right))
        .collect();
    let mut digits: Vec<i16> = aligned
        .chunks(4)
        .map(|group| {
            group
                .iter()
                .fold(0_i16, |n, b| n * 10 + i16::from(b - b'0'))
        })
        .collect();
    let mut weight = i16::try_from((pad_left + whole.len()) / 4).map_err(|_| NOT_A_DECIMAL)? - 1;
    let leading = digits.iter().take_while(|d| **d == 0).count();
    digits.drain(..leading);
    weight -= i16::try_from(leading).map_err(|_| NOT_A_DECIMAL)?;
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.is_empty() {
        weight = 0;
    }
    let sign: u16 = if negative && !digits.is_empty() {
        0x4000
    } else {
        0
    };
    let count = i16::try_from(digits.len()).map_err(|_| NOT_A_DECIMAL)?;
    let mut out = Vec::with_capacity(8 + 2 * digits.len());
    out.extend_from_slice(&count.to_be_bytes());
    out.extend_from_slice(&weight.to_be_bytes());
    out.extend_from_slice(&sign.to_be_bytes());
    out.extend_from_slice(&scale.to_be_bytes());
    for digit in digits {
        out.extend_from_slice(&digit.to_be_bytes());
    }
    Ok(out)
}

/// The columns of a main row as [`copy_main_rows`] loads them, in order:
/// the FLID, the state's fields, then the bookkeeping.
pub(super) struct MainRows;

impl MainRows {
    /// The bookkeeping columns after the state's fields.
    const BOOKKEEPING: [&'static str; 6] = [
        "operation_day",
        "state_version",
        "last_message_id",
        "updated_at",
        "state_digest",
        "state_document",
    ];

    fn names() -> impl Iterator<Item = &'static str> {
        std::iter::once("flid")
            .chain(FlightFields::COLUMNS.iter().map(|(name, _)| *name))
            .chain(Self::BOOKKEEPING)
    }

    /// How many fields each row has.
    fn fields() -> i16 {
        // 1 + 59 + 6: far below i16::MAX.
        (1 + FlightFields::COLUMNS.len() + Self::BOOKKEEPING.len()) as i16
    }
}

impl CopyTarget for MainRows {
    type Table = flight_schd::table;
    type SqlType = diesel::sql_types::BigInt;

    fn walk_target(mut pass: AstPass<'_, '_, Pg>) -> diesel::QueryResult<()> {
        pass.push_identifier("flight_schd")?;
        pass.push_sql("(");
        for (i, name) in Self::names().enumerate() {
            if i > 0 {
                pass.push_sql(", ");
            }
            pass.push_identifier(name)?;
        }
        pass.push_sql(")");
        Ok(())
    }
}

/// The text of the `COPY` that [`copy_main_rows`] sends, rendered the way
/// diesel renders it, for the statement snapshots.
pub(super) fn main_rows_statement() -> String {
    struct Statement;
    impl QueryFragment<Pg> for Statement {
        fn walk_ast<'b>(&'b self, mut pass: AstPass<'_, 'b, Pg>) -> diesel::QueryResult<()> {
            pass.push_sql("COPY ");
            MainRows::walk_target(pass.reborrow())?;
            pass.push_sql(" FROM STDIN WITH (FORMAT binary)");
            Ok(())
        }
    }
    diesel::debug_query::<Pg, _>(&Statement).to_string()
}

/// Loads the main rows of `flights`, which have none yet (read absent under
/// `PIPELINE_LOCK` in this transaction), with their digests: a FLID that
/// does have a row fails the load (unique violation) rather than being
/// overwritten. Rows are encoded and sent a block at a time.
pub(super) fn copy_main_rows(
    conn: &mut PgConnection,
    flights: &[&FlightWrite],
) -> Result<(), StoreError> {
    const OP: &str = "copy_flights";
    let columns = FlightFields::columns(flights.iter().map(|w| &w.flight.state.fields));
    let encoded = std::cell::Cell::new(None);
    let copy = diesel::copy_from(flight_schd::table)
        .from_raw_data(MainRows, |out| {
            let failed = |why: &'static str| {
                encoded.set(Some(why));
                diesel::result::Error::SerializationError(why.into())
            };
            let mut block = Vec::with_capacity(FLUSH_BYTES + 4096);
            block.extend_from_slice(COPY_BINARY_HEADER);
            for (row, write) in flights.iter().enumerate() {
                main_row(&mut block, write, &columns, row).map_err(failed)?;
                if block.len() >= FLUSH_BYTES {
                    out.write_all(&block).map_err(io_failed)?;
                    block.clear();
                }
            }
            block.extend_from_slice(COPY_BINARY_TRAILER);
            out.write_all(&block).map_err(io_failed)
        })
        .with_format(CopyFormat::Binary);
    let loaded = diesel::prelude::ExecuteCopyFromDsl::execute(copy, conn);
    match (loaded, encoded.get()) {
        (Ok(_), _) => Ok(()),
        (Err(_), Some(why)) => Err(StoreError::new(FailureKind::Other, OP, why)),
        (Err(e), None) => Err(errors::query(OP, e)),
    }
}

fn io_failed(e: std::io::Error) -> diesel::result::Error {
    diesel::result::Error::SerializationError(Box::new(e))
}

/// One main row: the FLID, the state's fields, the bookkeeping.
fn main_row(
    out: &mut Vec<u8>,
    write: &FlightWrite,
    columns: &[ColumnValues],
    row: usize,
) -> Result<(), &'static str> {
    let flight = &write.flight;
    out.extend_from_slice(&MainRows::fields().to_be_bytes());
    copy_field(out, Some(&flight.state.flid.to_be_bytes()))?;
    copy_columns(out, columns, row)?;
    copy_field(
        out,
        flight
            .operation_day
            .map(|d| pg_date(d).to_be_bytes())
            .as_ref(),
    )?;
    copy_field(out, Some(&flight.state_version.to_be_bytes()))?;
    copy_field(out, Some(&flight.last_message_id.to_be_bytes()))?;
    copy_field(out, Some(&pg_timestamp(flight.updated_at).to_be_bytes()))?;
    copy_field(out, Some(write.digest.as_bytes()))?;
    copy_field(out, Some(state_document(flight).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_binary_writes_lengths_big_endian_values_and_nulls() {
        let mut out = Vec::new();
        copy_field(&mut out, Some("é\t".as_bytes())).expect("text");
        copy_field(&mut out, None::<&[u8]>).expect("null");
        copy_field(&mut out, Some(&(-42_i64).to_be_bytes())).expect("bigint");
        copy_field(&mut out, Some(&7_i32.to_be_bytes())).expect("integer");
        let mut expected = vec![0, 0, 0, 3, 0xc3, 0xa9, b'\t'];
        expected.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        expected.extend_from_slice(&[0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xd6]);
        expected.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 7]);
        assert_eq!(out, expected);
        assert_eq!(COPY_BINARY_HEADER.len(), 19);
    }

    #[test]
    fn timestamps_count_microseconds_and_dates_days_from_2000() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).expect("day");
        let at = |y, m, d, h| day(y, m, d).and_hms_opt(h, 0, 0).expect("time");
        assert_eq!(pg_timestamp(at(2000, 1, 1, 0)), 0);
        assert_eq!(pg_timestamp(at(2000, 1, 1, 1)), 3_600_000_000);
        assert_eq!(pg_timestamp(at(1999, 12, 31, 23)), -3_600_000_000);
        assert_eq!(pg_date(day(2000, 1, 1)), 0);
        assert_eq!(pg_date(day(2000, 1, 2)), 1);
        assert_eq!(pg_date(day(1999, 12, 31)), -1);
        assert_eq!(pg_date(day(2026, 9, 9)), 9748);
    }

    #[test]
    fn text_that_is_no_decimal_is_refused() {
        for text in ["", "-", ".", "1.2.3", "1e5", "12,5", " 1", "0x10", "--1"] {
            assert!(pg_numeric(text).is_err(), "{text:?}");
        }
    }
}
