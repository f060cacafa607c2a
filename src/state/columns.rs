//! The column kinds of the flight tables, and the columnar view of many rows
//! that set-based writes bind (one array or batch per column).

use chrono::NaiveDateTime;

/// What an SIS value is stored as; each dialect maps a kind to its types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// Codes and free text of at most this many characters (the column's
    /// `VARCHAR(n)`: [`CODE_CHARS`], [`KEY_CHARS`] or [`TEXT_CHARS`]).
    Text(u16),
    /// Station-local wall-clock time, minute precision.
    Time,
    /// Flight and organisation ids.
    Id,
    /// Small counts and sequence numbers.
    Count,
    /// A decimal kept as its canonical text (`12.50`), so that no floating
    /// point ever touches a weight.
    Decimal,
}

/// The most characters of a `Code` column (`VARCHAR(16)`).
pub const CODE_CHARS: u16 = 16;
/// The most characters of a `Key` column (`VARCHAR(64)`).
pub const KEY_CHARS: u16 = 64;
/// The most characters of a `Text` column (`VARCHAR(1000)`).
pub const TEXT_CHARS: u16 = 1000;

/// One column of many rows, in row order; what a group write binds.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnValues {
    /// See [`ColumnKind::Text`].
    Text(Vec<Option<String>>),
    /// See [`ColumnKind::Time`].
    Time(Vec<Option<NaiveDateTime>>),
    /// See [`ColumnKind::Id`].
    Id(Vec<Option<i64>>),
    /// See [`ColumnKind::Count`].
    Count(Vec<Option<i32>>),
    /// See [`ColumnKind::Decimal`].
    Decimal(Vec<Option<String>>),
}

/// The Rust type of a column kind (`column_type!(Time)` is
/// `Option<NaiveDateTime>`), so that field lists name kinds, not types.
/// `Code` (`VARCHAR(16)`), `Key` (`VARCHAR(64)`) and `Text`
/// (`VARCHAR(1000)`) are all text; they differ in the longest value the
/// column takes.
macro_rules! column_type {
    (Code) => { Option<String> };
    (Key) => { Option<String> };
    (Text) => { Option<String> };
    (Time) => { Option<chrono::NaiveDateTime> };
    (Id) => { Option<i64> };
    (Count) => { Option<i32> };
    (Decimal) => { Option<String> };
}
pub(crate) use column_type;

/// The storage kind of a declared column kind.
macro_rules! storage_kind {
    (Code) => {
        $crate::state::columns::ColumnKind::Text($crate::state::columns::CODE_CHARS)
    };
    (Key) => {
        $crate::state::columns::ColumnKind::Text($crate::state::columns::KEY_CHARS)
    };
    (Text) => {
        $crate::state::columns::ColumnKind::Text($crate::state::columns::TEXT_CHARS)
    };
    ($kind:ident) => {
        $crate::state::columns::ColumnKind::$kind
    };
}
pub(crate) use storage_kind;

/// Checks a text value against the most characters its column holds
/// (`?` on [`TooLong`]); nothing for other kinds.
macro_rules! check_chars {
    (Code, $name:expr, $value:expr) => {
        $crate::state::columns::check_length($name, $crate::state::columns::CODE_CHARS, $value)?
    };
    (Key, $name:expr, $value:expr) => {
        $crate::state::columns::check_length($name, $crate::state::columns::KEY_CHARS, $value)?
    };
    (Text, $name:expr, $value:expr) => {
        $crate::state::columns::check_length($name, $crate::state::columns::TEXT_CHARS, $value)?
    };
    ($kind:ident, $name:expr, $value:expr) => {
        ()
    };
}
pub(crate) use check_chars;

/// A struct whose fields are the columns of a table (after its key columns),
/// so that set-based writes can be written once for every table.
pub trait TableRow: Sized {
    /// The columns in declaration order, with their kinds.
    const COLUMNS: &'static [(&'static str, ColumnKind)];

    /// Column by column, the values of `rows` in row order.
    fn columns<'a>(rows: impl Iterator<Item = &'a Self> + Clone) -> Vec<ColumnValues>
    where
        Self: 'a;
}

/// Wraps one column's values in the [`ColumnValues`] variant of its kind.
macro_rules! column_values {
    (Code, $values:expr) => {
        $crate::state::columns::ColumnValues::Text($values)
    };
    (Key, $values:expr) => {
        $crate::state::columns::ColumnValues::Text($values)
    };
    ($kind:ident, $values:expr) => {
        $crate::state::columns::ColumnValues::$kind($values)
    };
}
pub(crate) use column_values;

/// A text value longer than its column: bad input, rejected before any
/// statement runs rather than failing inside the transaction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{column} holds at most {max} characters, got {len}")]
pub struct TooLong {
    /// The column (the SIS element's name in lower case).
    pub column: &'static str,
    /// Its limit.
    pub max: usize,
    /// The value's length in characters.
    pub len: usize,
}

/// Defines a struct of nullable columns declared once as `name: Kind`, with
/// its column list and its columnar view. Field names are the columns' names
/// in lower case (PostgreSQL's folding of the unquoted upper-case names).
macro_rules! columns_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident { $( $(#[$fmeta:meta])* $field:ident : $kind:ident ),* $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "UPPERCASE")]
        pub struct $name {
            $(
                $(#[$fmeta])*
                #[doc = concat!("Column `", stringify!($field), "` (its meaning is the column's COMMENT in the migrations).")]
                #[serde(
                    skip_serializing_if = "Option::is_none",
                    serialize_with = "crate::state::json::column_json",
                    default
                )]
                pub $field: $crate::state::columns::column_type!($kind),
            )*
        }

        impl $crate::state::columns::TableRow for $name {
            const COLUMNS: &'static [(&'static str, $crate::state::columns::ColumnKind)] = &[
                $( (stringify!($field), $crate::state::columns::storage_kind!($kind)), )*
            ];

            fn columns<'a>(rows: impl Iterator<Item = &'a Self> + Clone) -> Vec<$crate::state::columns::ColumnValues>
            where
                Self: 'a,
            {
                vec![
                    $( $crate::state::columns::column_values!($kind, rows.clone().map(|r| r.$field.clone()).collect()), )*
                ]
            }
        }

        impl $name {
            /// Checks every text value against its column's length.
            ///
            /// # Errors
            ///
            /// The first [`TooLong`](crate::state::TooLong) value found.
            pub fn check_lengths(&self) -> Result<(), $crate::state::columns::TooLong> {
                $( $crate::state::columns::check_chars!($kind, stringify!($field), &self.$field); )*
                Ok(())
            }

            /// The names of the columns whose values differ between `self`
            /// and `other`, in declaration order.
            pub fn changed_columns(&self, other: &Self) -> Vec<&'static str> {
                let mut changed = Vec::new();
                $( if self.$field != other.$field { changed.push(stringify!($field)); } )*
                changed
            }
        }
    };
}
pub(crate) use columns_struct;

/// Used by the `check_lengths` that [`columns_struct`] generates.
pub(crate) fn check_length(
    column: &'static str,
    max: u16,
    value: &Option<String>,
) -> Result<(), TooLong> {
    let max = usize::from(max);
    match value {
        Some(text) => {
            let len = text.chars().count();
            if len > max {
                Err(TooLong { column, max, len })
            } else {
                Ok(())
            }
        }
        None => Ok(()),
    }
}
