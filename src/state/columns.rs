//! The column kinds of the flight tables, and the columnar view of many rows
//! that set-based writes bind (one array or batch per column).

use chrono::NaiveDateTime;

/// What an SIS value is stored as; each dialect maps a kind to its types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// Codes and free text.
    Text,
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
macro_rules! column_type {
    (Text) => { Option<String> };
    (Time) => { Option<chrono::NaiveDateTime> };
    (Id) => { Option<i64> };
    (Count) => { Option<i32> };
    (Decimal) => { Option<String> };
}
pub(crate) use column_type;

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
                #[serde(skip_serializing_if = "Option::is_none", default)] pub $field: $crate::state::columns::column_type!($kind),
            )*
        }

        impl $name {
            /// The table's columns in declaration order, with their kinds.
            pub const COLUMNS: &'static [(&'static str, $crate::state::columns::ColumnKind)] = &[
                $( (stringify!($field), $crate::state::columns::ColumnKind::$kind), )*
            ];

            /// Column by column, the values of `rows` in row order.
            pub fn columns<'a>(rows: impl Iterator<Item = &'a Self> + Clone) -> Vec<$crate::state::columns::ColumnValues>
            where
                Self: 'a,
            {
                vec![
                    $( $crate::state::columns::ColumnValues::$kind(rows.clone().map(|r| r.$field.clone()).collect()), )*
                ]
            }
        }
    };
}
pub(crate) use columns_struct;
