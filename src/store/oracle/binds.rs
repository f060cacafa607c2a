//! Typed binds, reads and batches: how Rust values reach Oracle 11g.
//!
//! Every bind states its Oracle type, never the driver's guess: a `&str` would go out as
//! `NVARCHAR2` (an index on a `VARCHAR2` column is then unusable in a predicate), a time as
//! `TIMESTAMP WITH TIME ZONE` (compared with a `DATE` column through the session time zone).
//! Flight times are `DATE` (second precision, no zone), bookkeeping times `TIMESTAMP`, ids
//! native integers, `LBWT` a `NUMBER` given as its decimal text (exact, no float), long text
//! `CLOB`.

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};
use oracle::sql_type::{Collection, OracleType, Timestamp, ToSql};
use oracle::{Batch, Connection, Row, SqlValue};

use super::errors::at;
use crate::FailureKind;
use crate::state::{ColumnKind, ColumnValues, StoredFlight};
use crate::store::{ProcStatus, StoreError};

/// The SQL collection type of id lists (`migrations_oracle/V001__flight_state.sql`). A
/// session that is not the schema owner's names it owner-qualified: OCI resolves a type name
/// in the connected user's schema, whatever `CURRENT_SCHEMA` says.
pub(super) const ID_LIST_TYPE: &str = "FLIGHTSTATE_ID_LIST";

/// Rows per batch round trip: large enough that a full day (9,999 flights) is ten round
/// trips, small enough that the bind buffers (one per column, each declared at its column's
/// full size, see [`batch_type`]) stay small beside the pump's other memory.
pub(super) const WRITE_BATCH: usize = 1_000;

/// The most bytes an 11g `VARCHAR2` column holds, whatever its `CHAR` length says.
pub(super) const VARCHAR2_MAX_BYTES: usize = 4_000;

fn timestamp(t: NaiveDateTime) -> oracle::Result<Timestamp> {
    Timestamp::new(
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.nanosecond(),
    )
}

/// A time for a `DATE` column. PostgreSQL's `TIMESTAMP(0)` rounds fractional seconds; `DATE`
/// would drop them, so they are rounded here and both dialects store the same second.
#[derive(Clone, Copy, Debug)]
pub(super) struct AsDate(pub(super) Option<NaiveDateTime>);

impl AsDate {
    /// A calendar day (`OPERATION_DAY`).
    pub(super) fn day(day: NaiveDate) -> AsDate {
        AsDate(Some(day.and_time(chrono::NaiveTime::MIN)))
    }
}

impl ToSql for AsDate {
    fn oratype(&self, _conn: &Connection) -> oracle::Result<OracleType> {
        Ok(OracleType::Date)
    }

    fn to_sql(&self, val: &mut SqlValue) -> oracle::Result<()> {
        match self.0 {
            Some(t) => val.set(&timestamp(StoredFlight::row_time(t))?),
            None => val.set_null(),
        }
    }
}

/// A UTC time for a `TIMESTAMP(6)` column (bookkeeping of the machinery tables).
#[derive(Clone, Copy, Debug)]
pub(super) struct AsTimestamp(pub(super) Option<NaiveDateTime>);

impl ToSql for AsTimestamp {
    fn oratype(&self, _conn: &Connection) -> oracle::Result<OracleType> {
        Ok(OracleType::Timestamp(6))
    }

    fn to_sql(&self, val: &mut SqlValue) -> oracle::Result<()> {
        match self.0 {
            Some(t) => val.set(&timestamp(t)?),
            None => val.set_null(),
        }
    }
}

/// Bytes per character of the client character set: the `oracle` crate always opens its
/// environment in UTF-8, and ODPI-C sizes a `VARCHAR2` bind declared as `n` characters as
/// `n × 4` bytes.
const CLIENT_BYTES_PER_CHAR: usize = 4;

/// The bind type of a text of at most [`VARCHAR2_MAX_BYTES`] bytes (error texts, clipped by
/// [`clip`]): 1,000 characters, a 4,000-byte buffer. A `VARCHAR2(2000)` bind would be an
/// 8,000-byte buffer under the UTF-8 client, which the server takes for a `LONG`: ORA-01461
/// in `SELECT :x FROM DUAL` or `SUBSTR(:x, …)`.
pub(super) const LONG_TEXT_BIND: OracleType =
    OracleType::Varchar2((VARCHAR2_MAX_BYTES / CLIENT_BYTES_PER_CHAR) as u32);

/// The bind size, in characters, whose byte buffer holds `bytes` bytes and no more than the
/// next multiple of four: a text of at most 4,000 bytes never gets a buffer over 4,000 bytes
/// (a `LONG` bind to the server, see [`LONG_TEXT_BIND`]).
fn bind_chars(bytes: usize) -> u32 {
    u32::try_from(bytes.div_ceil(CLIENT_BYTES_PER_CHAR).max(1)).unwrap_or(u32::MAX)
}

/// Text for a `VARCHAR2` column or predicate. Oracle stores `''` as NULL: the state layer
/// never holds an empty string (an empty element is "no value"), and the journal and outbox
/// refuse one before the statement (`store::nonempty`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Text<'a>(pub(super) Option<&'a str>);

impl ToSql for Text<'_> {
    fn oratype(&self, _conn: &Connection) -> oracle::Result<OracleType> {
        Ok(OracleType::Varchar2(bind_chars(self.0.map_or(1, str::len))))
    }

    fn to_sql(&self, val: &mut SqlValue) -> oracle::Result<()> {
        match self.0 {
            Some(s) => val.set(&s),
            None => val.set_null(),
        }
    }
}

/// The most bytes a long text is bound as text rather than as a temporary LOB: OCI takes a
/// character bind of up to 32,767 bytes into a `CLOB` column of an `INSERT`'s `VALUES` or an
/// `UPDATE`'s `SET` (the data interface for LOBs), sent with the statement in its one round
/// trip. A longer text goes as a `CLOB` bind, for which ODPI-C creates a temporary LOB and
/// writes it (about three round trips more).
pub(super) const LONG_TEXT_AS_TEXT_MAX_BYTES: usize = 32_767;

/// A long-text bind of a statement, declared in [`statements::CLOB_BINDS`]: the only way
/// to bind text into a `CLOB` column, so that the binds the lint checks (long binds last,
/// none in a select list or beside `RETURNING`) are the binds the code sends.
///
/// [`statements::CLOB_BINDS`]: super::statements::CLOB_BINDS
#[derive(Clone, Copy, Debug)]
pub(super) struct ClobBind {
    name: &'static str,
}

impl ClobBind {
    /// Bind `name` of `statement`, which [`statements::CLOB_BINDS`] must declare.
    ///
    /// # Errors
    ///
    /// `Other` when it does not: a bind the lint has not checked is never sent.
    ///
    /// [`statements::CLOB_BINDS`]: super::statements::CLOB_BINDS
    pub(super) fn of(statement: &'static str, name: &'static str) -> Result<ClobBind, StoreError> {
        if super::statements::CLOB_BINDS.contains(&(statement, name)) {
            Ok(ClobBind { name })
        } else {
            Err(StoreError::new(
                FailureKind::Other,
                statement,
                format!(
                    "bind :{name} is not declared a CLOB bind of {statement} (statements::CLOB_BINDS)"
                ),
            ))
        }
    }

    /// The bind's name.
    pub(super) fn name(self) -> &'static str {
        self.name
    }

    /// `text` as this bind's value.
    pub(super) fn value(self, text: &str) -> Clob<'_> {
        Clob(text)
    }

    /// The type a batch declares for this bind when its longest value has `longest` bytes:
    /// text (`LONG` to ODPI-C, no temporary LOB) while every value fits
    /// [`LONG_TEXT_AS_TEXT_MAX_BYTES`], else `CLOB`.
    pub(super) fn batch_type(self, longest: usize) -> OracleType {
        long_text_type(longest)
    }
}

fn long_text_type(bytes: usize) -> OracleType {
    if bytes <= LONG_TEXT_AS_TEXT_MAX_BYTES {
        OracleType::Long
    } else {
        OracleType::CLOB
    }
}

/// Text for a `CLOB` column, built by [`ClobBind::value`]: no 4000-byte limit on the bind;
/// up to [`LONG_TEXT_AS_TEXT_MAX_BYTES`] sent as text with the statement, longer as a
/// temporary LOB.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clob<'a>(&'a str);

impl ToSql for Clob<'_> {
    fn oratype(&self, _conn: &Connection) -> oracle::Result<OracleType> {
        Ok(long_text_type(self.0.len()))
    }

    fn to_sql(&self, val: &mut SqlValue) -> oracle::Result<()> {
        val.set(&self.0)
    }
}

/// Cuts `text` to at most `chars` characters and [`VARCHAR2_MAX_BYTES`] bytes, on a character
/// boundary: what an 11g `VARCHAR2(n CHAR)` column can take.
pub(super) fn clip(text: &str, chars: usize) -> &str {
    let mut end = 0;
    for (count, (i, c)) in text.char_indices().enumerate() {
        if count == chars || i + c.len_utf8() > VARCHAR2_MAX_BYTES {
            return &text[..end];
        }
        end = i + c.len_utf8();
    }
    text
}

/// Reads a `DATE` or `TIMESTAMP` column.
pub(super) fn read_time(ts: Option<Timestamp>) -> Option<NaiveDateTime> {
    ts.and_then(|ts| {
        NaiveDate::from_ymd_opt(ts.year(), ts.month(), ts.day())
            .and_then(|d| d.and_hms_nano_opt(ts.hour(), ts.minute(), ts.second(), ts.nanosecond()))
    })
}

/// Reads a `NOT NULL` time column.
pub(super) fn required_time(ts: Timestamp, op: &'static str) -> Result<NaiveDateTime, StoreError> {
    read_time(Some(ts)).ok_or_else(|| {
        StoreError::new(
            FailureKind::Other,
            op,
            format!("the database returned an impossible time {ts}"),
        )
    })
}

/// Reads the `PROC_STATE.STATUS` column of a row that statement `op`
/// selected: the one decoder of the column in this dialect.
pub(super) fn proc_status(row: &Row, op: &'static str) -> Result<ProcStatus, StoreError> {
    let code: String = row.get("status").map_err(at(op))?;
    ProcStatus::from_code(&code).ok_or_else(|| {
        StoreError::new(
            FailureKind::Other,
            op,
            format!("unknown PROC_STATE.STATUS {code:?}"),
        )
    })
}

/// An id list bound as one `FLIGHTSTATE_ID_LIST` collection: no `IN` list, so no 1000-item
/// limit, and one statement text whatever the count.
pub(super) fn id_list(
    conn: &Connection,
    type_name: &str,
    ids: &[i64],
    op: &'static str,
) -> Result<Collection, StoreError> {
    let ty = conn.object_type(type_name).map_err(at(op))?;
    let mut list = ty.new_collection().map_err(at(op))?;
    for id in ids {
        list.push(id).map_err(at(op))?;
    }
    Ok(list)
}

/// The Oracle type a batch binds a column kind as. Text is declared at its column's full
/// size from the start, at most [`VARCHAR2_MAX_BYTES`]: a batch buffer that a longer value
/// outgrows is reallocated at the next power of two (the `oracle` crate's `batch.rs`), so a
/// 2,049–4,000-byte value would get a 4,096-byte buffer, a `LONG` bind to the server
/// (ORA-01461 in MERGE and INSERT).
pub(super) fn batch_type(kind: ColumnKind) -> OracleType {
    match kind {
        ColumnKind::Text(chars) => OracleType::Varchar2(bind_chars(
            (usize::from(chars) * CLIENT_BYTES_PER_CHAR).min(VARCHAR2_MAX_BYTES),
        )),
        ColumnKind::Time => OracleType::Date,
        ColumnKind::Id | ColumnKind::Count => OracleType::Int64,
        ColumnKind::Decimal => OracleType::Number(11, 2),
    }
}

/// Whether `values` are of the column kind `kind`.
pub(super) fn of_kind(values: &ColumnValues, kind: ColumnKind) -> bool {
    matches!(
        (values, kind),
        (ColumnValues::Text(_), ColumnKind::Text(_))
            | (ColumnValues::Time(_), ColumnKind::Time)
            | (ColumnValues::Id(_), ColumnKind::Id)
            | (ColumnValues::Count(_), ColumnKind::Count)
            | (ColumnValues::Decimal(_), ColumnKind::Decimal)
    )
}

/// Sets bind `name` of the batch's current row to row `row` of `values`.
pub(super) fn set_cell(
    batch: &mut Batch<'_>,
    name: &str,
    values: &ColumnValues,
    row: usize,
) -> oracle::Result<()> {
    match values {
        ColumnValues::Text(v) => batch.set(name, &Text(v.get(row).and_then(|s| s.as_deref()))),
        ColumnValues::Decimal(v) => batch.set(name, &v.get(row).and_then(|s| s.as_deref())),
        ColumnValues::Time(v) => batch.set(name, &AsDate(v.get(row).copied().flatten())),
        ColumnValues::Id(v) => batch.set(name, &v.get(row).copied().flatten()),
        ColumnValues::Count(v) => batch.set(name, &v.get(row).copied().flatten()),
    }
}

/// Runs `sql` as array DML over `rows` rows: the binds are typed first (`types`), then
/// `fill` sets each row's binds by name; rows go to the server [`WRITE_BATCH`] at a time.
///
/// Default mode only: batch errors and per-row counts need a 12.1 client and server. The
/// first failing row fails the whole call (and the caller's transaction rolls back).
pub(super) fn run_batch(
    conn: &Connection,
    sql: &str,
    op: &'static str,
    types: &[(&str, OracleType)],
    rows: usize,
    mut fill: impl FnMut(&mut Batch<'_>, usize) -> oracle::Result<()>,
) -> Result<(), StoreError> {
    if rows == 0 {
        return Ok(());
    }
    let mut batch = conn
        .batch(sql, rows.min(WRITE_BATCH))
        .build()
        .map_err(at(op))?;
    for (name, ty) in types {
        batch.set_type(*name, ty).map_err(at(op))?;
    }
    for row in 0..rows {
        fill(&mut batch, row).map_err(at(op))?;
        batch.append_row(&[]).map_err(at(op))?;
    }
    batch.execute().map_err(at(op))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").expect("test time")
    }

    #[test]
    fn only_declared_clob_binds_are_sent() {
        let bind = ClobBind::of("insert_flights", "state_document").expect("declared");
        assert_eq!(bind.name(), "state_document");
        let err = ClobBind::of("insert_flights", "remc").expect_err("not declared");
        assert_eq!(err.kind(), FailureKind::Other);
        let err = ClobBind::of("upsert_flights", "state_document").expect_err("not declared");
        assert_eq!(err.op(), "upsert_flights");
    }

    #[test]
    fn long_text_goes_as_text_up_to_32_kb_and_as_a_lob_past_it() {
        let bind = ClobBind::of("insert_change_notices", "payload").expect("declared");
        assert_eq!(bind.batch_type(4_001), OracleType::Long);
        assert_eq!(bind.batch_type(32_767), OracleType::Long);
        assert_eq!(bind.batch_type(32_768), OracleType::CLOB);
    }

    /// Every long bind goes through [`ClobBind`]: no other file of the dialect names the
    /// `CLOB` or `LONG` bind types.
    #[test]
    fn no_long_bind_type_outside_this_file() {
        fn visit(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("read the dialect's sources") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    visit(&path, found);
                } else if path.file_name().is_some_and(|n| n != "binds.rs") {
                    let text = std::fs::read_to_string(&path).expect("read a source");
                    for needle in ["OracleType::CLOB", "OracleType::Long"] {
                        if text.contains(needle) {
                            found.push(format!("{}: {needle}", path.display()));
                        }
                    }
                }
            }
        }
        let mut found = Vec::new();
        visit(
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/store/oracle")),
            &mut found,
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn clip_respects_characters_and_bytes() {
        assert_eq!(clip("abcdef", 3), "abc");
        assert_eq!(clip("abc", 2000), "abc");
        let wide = "延".repeat(2000); // 3 bytes each: 6000 bytes
        let clipped = clip(&wide, 2000);
        assert!(clipped.len() <= VARCHAR2_MAX_BYTES);
        assert_eq!(clipped.chars().count(), 1333);
    }

    #[test]
    fn text_binds_never_exceed_4000_bytes_for_4000_byte_texts() {
        assert_eq!(bind_chars(0), 1);
        assert_eq!(bind_chars(1), 1);
        assert_eq!(bind_chars(4), 1);
        assert_eq!(bind_chars(5), 2);
        assert_eq!(bind_chars(4_000), 1_000);
        for bytes in [1, 999, 1_001, 3_997, 4_000] {
            let buffer = bind_chars(bytes) as usize * CLIENT_BYTES_PER_CHAR;
            assert!(buffer >= bytes && buffer <= VARCHAR2_MAX_BYTES, "{bytes}");
        }
        let OracleType::Varchar2(chars) = LONG_TEXT_BIND else {
            panic!("LONG_TEXT_BIND is a VARCHAR2 bind");
        };
        assert_eq!(chars as usize * CLIENT_BYTES_PER_CHAR, VARCHAR2_MAX_BYTES);
        let error = "é".repeat(2_000); // 4,000 bytes, as clip leaves the longest error text
        assert!(clip(&error, 2_000).len() <= VARCHAR2_MAX_BYTES);
    }

    /// The `VARCHAR2(n CHAR)` length of every column the `V` scripts create, by name
    /// (column names shared by several tables have one length everywhere).
    fn migrated_text_lengths() -> Vec<(String, usize)> {
        let mut out = Vec::new();
        for (_, _, script) in crate::store::oracle::migration_scripts() {
            for line in script.lines() {
                let words: Vec<&str> = line.split_whitespace().collect();
                if let [name, kind, ..] = words[..]
                    && let Some(n) = kind
                        .strip_prefix("VARCHAR2(")
                        .and_then(|rest| rest.parse::<usize>().ok())
                {
                    out.push((name.to_ascii_lowercase(), n));
                }
            }
        }
        out
    }

    fn text_binds<T: crate::state::TableRow>() -> Vec<(&'static str, OracleType)> {
        T::COLUMNS
            .iter()
            .filter(|(_, kind)| matches!(kind, ColumnKind::Text(_)))
            .map(|(name, kind)| (*name, batch_type(*kind)))
            .collect()
    }

    #[test]
    fn every_batch_text_bind_is_declared_at_its_columns_full_size_and_never_over_4000_bytes() {
        use crate::state::{
            Bridge, Carousel, Chock, Chute, Counter, Delay, FlightFields, Gate, RoutePoint, Stand,
        };
        let migrated = migrated_text_lengths();
        let binds = [
            text_binds::<FlightFields>(),
            text_binds::<Gate>(),
            text_binds::<Counter>(),
            text_binds::<Carousel>(),
            text_binds::<Stand>(),
            text_binds::<Chute>(),
            text_binds::<Delay>(),
            text_binds::<Bridge>(),
            text_binds::<Chock>(),
            text_binds::<RoutePoint>(),
        ]
        .concat();
        assert!(binds.len() > 40, "every table's text columns: {binds:?}");
        for (name, ty) in binds {
            let OracleType::Varchar2(chars) = ty else {
                panic!("{name}: a text column binds as VARCHAR2, not {ty}");
            };
            let buffer = chars as usize * CLIENT_BYTES_PER_CHAR;
            let lengths: Vec<usize> = migrated
                .iter()
                .filter(|(column, _)| column == name)
                .map(|(_, n)| *n)
                .collect();
            assert!(
                !lengths.is_empty(),
                "{name}: no VARCHAR2 column in the migrations"
            );
            for n in lengths {
                let column_bytes = (n * CLIENT_BYTES_PER_CHAR).min(VARCHAR2_MAX_BYTES);
                assert_eq!(
                    buffer, column_bytes,
                    "{name}: VARCHAR2({n} CHAR) holds {column_bytes} bytes, its bind {buffer}"
                );
            }
            assert!(buffer <= VARCHAR2_MAX_BYTES, "{name}: a LONG bind");
        }
    }

    #[test]
    fn the_widest_text_a_column_takes_fits_its_batch_bind_without_growing() {
        // 1,000 CJK characters (3,000 bytes) in a VARCHAR2(1000 CHAR) column, and the
        // 4,000-byte worst case of four-byte characters: the declared buffer holds both, so
        // the crate never reallocates it at the next power of two.
        let OracleType::Varchar2(chars) = batch_type(ColumnKind::Text(crate::state::TEXT_CHARS))
        else {
            panic!("text binds as VARCHAR2");
        };
        let buffer = chars as usize * CLIENT_BYTES_PER_CHAR;
        for text in ["延".repeat(1_000), "𝄞".repeat(1_000)] {
            assert!(text.len() <= buffer && buffer <= VARCHAR2_MAX_BYTES);
            // What `Text::oratype` asks for this value; more than `chars` would regrow.
            let needed = bind_chars(text.len());
            assert!(
                needed <= chars,
                "{} bytes need {needed} of {chars}",
                text.len()
            );
        }
    }

    #[test]
    fn times_survive_the_timestamp_conversion() {
        let time = t("2026-09-09 08:15:30.123456");
        let ts = timestamp(time).expect("valid");
        assert_eq!(read_time(Some(ts)), Some(time));
        assert_eq!(read_time(None), None);
    }
}
