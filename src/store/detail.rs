//! The nine detail tables of a flight, declared once: each table's row type
//! (its columns are the row struct's, [`TableRow`]), its statements and how a
//! flight's collections map to its rows. Both dialects read, delete, insert
//! and (PostgreSQL) `COPY` every table from this declaration alone, through
//! [`with_detail_table!`]; nothing here knows a dialect.

use crate::FailureKind;
use crate::state::{
    Bridge, Carousel, Chock, Chute, Counter, Delay, FlightState, Gate, RoutePoint, Stand,
    StoredFlight, TableRow,
};
use crate::store::{DetailTable, StoreError};

/// A detail table: rows keyed by `(FLID, [ROUTE_KIND,] ORDINAL)` whose other
/// columns are the row type's [`TableRow::COLUMNS`].
pub(crate) trait Detail: TableRow + PartialEq + 'static {
    /// The statement reading the rows of many flights (`sql/<dialect>/`).
    const SELECT: &'static str;
    /// The statement deleting the rows of many flights.
    const DELETE: &'static str;
    /// The statement inserting many rows of many flights.
    const INSERT: &'static str;
    /// The name of PostgreSQL's `COPY … FROM STDIN` into the table.
    const COPY: &'static str;
    /// The `ROUTE_KIND` of each of a flight's collections stored in the
    /// table; `[None]` for a table without that column (one collection).
    const KINDS: &'static [Option<&'static str>];

    /// The collection of `state` stored with `ROUTE_KIND` `kind`.
    fn rows<'s>(state: &'s FlightState, kind: Option<&str>) -> &'s [Self];

    /// The same collection, to read rows into.
    fn rows_mut<'s>(state: &'s mut FlightState, kind: Option<&str>) -> &'s mut Vec<Self>;

    /// Whether the table has a `ROUTE_KIND` column (after `FLID`).
    fn has_route_kind() -> bool {
        Self::KINDS.first().is_some_and(Option::is_some)
    }
}

/// Declares a detail table of one collection (no `ROUTE_KIND`).
macro_rules! single_collection {
    ($row:ident, $field:ident, $name:literal) => {
        impl Detail for $row {
            const SELECT: &'static str = concat!("select_", $name);
            const DELETE: &'static str = concat!("delete_", $name);
            const INSERT: &'static str = concat!("insert_", $name);
            const COPY: &'static str = concat!("copy_", $name);
            const KINDS: &'static [Option<&'static str>] = &[None];

            fn rows<'s>(state: &'s FlightState, _: Option<&str>) -> &'s [Self] {
                &state.$field
            }

            fn rows_mut<'s>(state: &'s mut FlightState, _: Option<&str>) -> &'s mut Vec<Self> {
                &mut state.$field
            }
        }
    };
}

single_collection!(Gate, gates, "gates");
single_collection!(Counter, counters, "counters");
single_collection!(Carousel, carousels, "carousels");
single_collection!(Stand, stands, "stands");
single_collection!(Chute, chutes, "chutes");
single_collection!(Delay, delays, "delays");
single_collection!(Bridge, bridges, "bridges");
single_collection!(Chock, chocks, "chocks");

/// ROUT and ERUT share `FLIGHT_ROUTE_POINT`, told apart by `ROUTE_KIND`.
impl Detail for RoutePoint {
    const SELECT: &'static str = "select_route_points";
    const DELETE: &'static str = "delete_route_points";
    const INSERT: &'static str = "insert_route_points";
    const COPY: &'static str = "copy_route_points";
    const KINDS: &'static [Option<&'static str>] = &[Some("ROUT"), Some("ERUT")];

    fn rows<'s>(state: &'s FlightState, kind: Option<&str>) -> &'s [Self] {
        match kind {
            Some("ERUT") => &state.entire_route,
            _ => &state.route,
        }
    }

    fn rows_mut<'s>(state: &'s mut FlightState, kind: Option<&str>) -> &'s mut Vec<Self> {
        match kind {
            Some("ERUT") => &mut state.entire_route,
            _ => &mut state.route,
        }
    }
}

/// Evaluates `$visitor.visit::<Row>()` with the row type of the detail table
/// `$table` (a [`DetailTable`]): the one place a table's value becomes its
/// type. A macro rather than a function over a visitor trait, so that each
/// dialect's visitor can ask of the row type what that dialect alone needs
/// (its own row reader, its `COPY`).
macro_rules! with_detail_table {
    ($table:expr, $visitor:expr) => {
        match $table {
            $crate::store::DetailTable::Gate => $visitor.visit::<$crate::state::Gate>(),
            $crate::store::DetailTable::Counter => $visitor.visit::<$crate::state::Counter>(),
            $crate::store::DetailTable::Carousel => $visitor.visit::<$crate::state::Carousel>(),
            $crate::store::DetailTable::Stand => $visitor.visit::<$crate::state::Stand>(),
            $crate::store::DetailTable::Chute => $visitor.visit::<$crate::state::Chute>(),
            $crate::store::DetailTable::Delay => $visitor.visit::<$crate::state::Delay>(),
            $crate::store::DetailTable::Bridge => $visitor.visit::<$crate::state::Bridge>(),
            $crate::store::DetailTable::Chock => $visitor.visit::<$crate::state::Chock>(),
            $crate::store::DetailTable::RoutePoint => $visitor.visit::<$crate::state::RoutePoint>(),
        }
    };
}
pub(crate) use with_detail_table;

impl DetailTable {
    /// The tables whose rows differ between two states of one flight:
    /// exactly what a write of `new` over `old` must replace.
    pub fn changed(old: &FlightState, new: &FlightState) -> Vec<DetailTable> {
        struct Differs<'s>(&'s FlightState, &'s FlightState);
        impl Differs<'_> {
            fn visit<D: Detail>(&self) -> bool {
                D::KINDS
                    .iter()
                    .any(|kind| D::rows(self.0, *kind) != D::rows(self.1, *kind))
            }
        }
        let differs = Differs(old, new);
        DetailTable::ALL
            .into_iter()
            .filter(|table| with_detail_table!(table, differs))
            .collect()
    }
}

/// The statement of file `name` among a dialect's statements (`all`: file
/// name and text), for the statements a declaration names.
///
/// # Errors
///
/// A name with no file (a test checks every declared one has its file in
/// both dialects).
pub(crate) fn statement(
    all: &'static [(&'static str, &'static str)],
    name: &'static str,
) -> Result<&'static str, StoreError> {
    all.iter()
        .find(|(file, _)| *file == name)
        .map(|(_, text)| *text)
        .ok_or_else(|| StoreError::new(FailureKind::Other, name, "no such statement"))
}

/// One detail table's rows across many flights, with their keys, column by
/// column: what a group insert binds or a `COPY` sends.
pub(crate) struct KeyedRows<'s, D> {
    /// `FLID` of each row.
    pub(crate) flids: Vec<i64>,
    /// `ROUTE_KIND` of each row (`None` for a table without it).
    pub(crate) route_kinds: Vec<Option<&'static str>>,
    /// `ORDINAL` of each row: its position in its collection, from 1.
    pub(crate) ordinals: Vec<i32>,
    /// The rows' own columns.
    pub(crate) items: Vec<&'s D>,
}

impl<'s, D: Detail> KeyedRows<'s, D> {
    /// The rows of every collection `D` stores of `flights`.
    pub(crate) fn of(flights: &[&'s StoredFlight]) -> Self {
        let mut rows = KeyedRows {
            flids: Vec::new(),
            route_kinds: Vec::new(),
            ordinals: Vec::new(),
            items: Vec::new(),
        };
        for flight in flights {
            for kind in D::KINDS {
                let items = D::rows(&flight.state, *kind);
                for (position, item) in items.iter().enumerate() {
                    rows.flids.push(flight.state.flid);
                    rows.route_kinds.push(*kind);
                    // A flight has far fewer than 2^31 rows of one kind.
                    rows.ordinals
                        .push(i32::try_from(position + 1).unwrap_or(i32::MAX));
                    rows.items.push(item);
                }
            }
        }
        rows
    }

    /// Whether there is no row at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Names;
    impl Names {
        fn visit<D: Detail>(&self) -> [&'static str; 4] {
            [D::SELECT, D::DELETE, D::INSERT, D::COPY]
        }
    }

    #[test]
    fn each_table_value_names_its_own_statements() {
        let tables = [
            "gates",
            "counters",
            "carousels",
            "stands",
            "chutes",
            "delays",
            "bridges",
            "chocks",
            "route_points",
        ];
        for (table, name) in DetailTable::ALL.into_iter().zip(tables) {
            let expected =
                ["select_", "delete_", "insert_", "copy_"].map(|verb| verb.to_owned() + name);
            assert_eq!(with_detail_table!(table, Names), expected, "{table:?}");
        }
    }

    #[test]
    fn route_points_keep_rout_and_erut_apart_in_input_order() {
        let point = |apcd: &str| RoutePoint {
            apcd: Some(apcd.to_owned()),
            ..RoutePoint::default()
        };
        let mut flight = StoredFlight {
            state: FlightState::new(7),
            operation_day: None,
            state_version: 1,
            last_message_id: 1,
            updated_at: chrono::NaiveDateTime::default(),
        };
        flight.state.route = vec![point("AMS"), point("LHR")];
        flight.state.entire_route = vec![point("ZRH")];
        let rows = KeyedRows::<RoutePoint>::of(&[&flight]);
        assert_eq!(rows.route_kinds, [Some("ROUT"), Some("ROUT"), Some("ERUT")]);
        assert_eq!(rows.ordinals, [1, 2, 1]);
        assert!(RoutePoint::has_route_kind() && !Gate::has_route_kind());
        let mut read = FlightState::new(7);
        for (kind, item) in rows.route_kinds.iter().zip(&rows.items) {
            RoutePoint::rows_mut(&mut read, *kind).push((*item).clone());
        }
        assert_eq!(read, flight.state);
        assert_eq!(
            DetailTable::changed(&FlightState::new(7), &read),
            [DetailTable::RoutePoint]
        );
    }
}
