//! The detail tables' `COPY … FROM STDIN`: diesel's `copy_from(…)
//! .from_insertable(…)`, which sends PostgreSQL's binary format through each
//! column's `ToSql`, with one `Insertable` row per table generated from the
//! row types' one declaration of their columns
//! ([`flight_tables`](crate::state)).

use diesel::PgConnection;
use diesel::pg::Pg;

use super::errors;
use super::schema;
use crate::store::StoreError;
use crate::store::detail::{Detail, KeyedRows};

/// A detail table that PostgreSQL loads with `COPY`.
pub(super) trait PgCopy: Detail {
    /// Loads `rows` (which the table does not have yet).
    fn copy(conn: &mut PgConnection, rows: &KeyedRows<'_, Self>) -> Result<(), StoreError>;

    /// The text of the `COPY` that [`copy`](PgCopy::copy) sends.
    fn copy_statement() -> String;
}

/// The diesel table of each detail row type, under the row type's name.
mod tables {
    pub(super) use super::schema::flight_bridge as Bridge;
    pub(super) use super::schema::flight_carousel as Carousel;
    pub(super) use super::schema::flight_chock as Chock;
    pub(super) use super::schema::flight_chute as Chute;
    pub(super) use super::schema::flight_counter as Counter;
    pub(super) use super::schema::flight_delay as Delay;
    pub(super) use super::schema::flight_gate as Gate;
    pub(super) use super::schema::flight_route_point as RoutePoint;
    pub(super) use super::schema::flight_stand as Stand;
}

/// The text of a `COPY <columns> FROM STDIN WITH (FORMAT binary)`, rendered
/// the way diesel renders it (diesel does not expose it), for the statement
/// snapshots.
fn statement_of<Target: diesel::pg::CopyTarget>() -> String {
    struct Copy<Target>(std::marker::PhantomData<Target>);
    impl<Target: diesel::pg::CopyTarget> diesel::query_builder::QueryFragment<Pg> for Copy<Target> {
        fn walk_ast<'b>(
            &'b self,
            mut pass: diesel::query_builder::AstPass<'_, 'b, Pg>,
        ) -> diesel::QueryResult<()> {
            pass.push_sql("COPY ");
            Target::walk_target(pass.reborrow())?;
            pass.push_sql(" FROM STDIN WITH (FORMAT binary)");
            Ok(())
        }
    }
    diesel::debug_query::<Pg, _>(&Copy::<Target>(std::marker::PhantomData)).to_string()
}

/// A column's value as the `Insertable` row borrows it.
macro_rules! copy_type {
    ($lt:lifetime, Time) => { Option<chrono::NaiveDateTime> };
    ($lt:lifetime, Id) => { Option<i64> };
    ($lt:lifetime, Count) => { Option<i32> };
    ($lt:lifetime, $text:ident) => { Option<&$lt str> };
}

macro_rules! copy_value {
    (Time, $value:expr) => {
        $value
    };
    (Id, $value:expr) => {
        $value
    };
    (Count, $value:expr) => {
        $value
    };
    ($text:ident, $value:expr) => {
        $value.as_deref()
    };
}

/// `PgCopy` for a detail row type: an `Insertable` row of the table's
/// columns in order, keys first. `FlightFields` is the main row, no detail
/// table: it has none.
macro_rules! pg_copy {
    ($(#[$meta:meta])* pub struct FlightFields { $($body:tt)* }) => {};
    ($(#[$meta:meta])* pub struct RoutePoint { $( $field:ident : $kind:ident ),* $(,)? }) => {
        pg_copy!(@row RoutePoint [route_kind] $( $field : $kind ),*);
    };
    ($(#[$meta:meta])* pub struct $name:ident { $( $field:ident : $kind:ident ),* $(,)? }) => {
        pg_copy!(@row $name [] $( $field : $kind ),*);
    };
    (@row $name:ident [$($route_kind:ident)?] $( $field:ident : $kind:ident ),*) => {
        #[allow(non_snake_case)]
        mod $name {
            use super::tables;

            #[derive(diesel::Insertable)]
            #[diesel(table_name = tables::$name, treat_none_as_default_value = false)]
            pub(super) struct Row<'a> {
                flid: i64,
                $( $route_kind: &'a str, )?
                ordinal: i32,
                $( $field: copy_type!('a, $kind), )*
            }

            impl<'a> Row<'a> {
                pub(super) fn of(
                    flid: i64,
                    _route_kind: Option<&'a str>,
                    ordinal: i32,
                    item: &'a crate::state::$name,
                ) -> Self {
                    Row {
                        flid,
                        $( $route_kind: _route_kind.unwrap_or_default(), )?
                        ordinal,
                        $( $field: copy_value!($kind, item.$field), )*
                    }
                }
            }

            /// The columns of `Row`, in its order.
            pub(super) type Columns = (
                tables::$name::flid,
                $( tables::$name::$route_kind, )?
                tables::$name::ordinal,
                $( tables::$name::$field, )*
            );
        }

        impl PgCopy for crate::state::$name {
            fn copy(
                conn: &mut PgConnection,
                rows: &KeyedRows<'_, Self>,
            ) -> Result<(), StoreError> {
                let values: Vec<$name::Row<'_>> = (0..rows.items.len())
                    .map(|i| {
                        $name::Row::of(
                            rows.flids[i],
                            rows.route_kinds[i],
                            rows.ordinals[i],
                            rows.items[i],
                        )
                    })
                    .collect();
                let copy = diesel::copy_from(tables::$name::table).from_insertable(values);
                diesel::prelude::ExecuteCopyFromDsl::execute(copy, conn)
                    .map(drop)
                    .map_err(|e| errors::query(<Self as Detail>::COPY, e))
            }

            fn copy_statement() -> String {
                statement_of::<$name::Columns>()
            }
        }
    };
}

crate::state::flight_tables!(pg_copy);
