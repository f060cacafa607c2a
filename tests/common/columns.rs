//! The column-agreement table, once for both dialects: each flight table, the
//! insert statement that writes it, and its columns in the order the Rust
//! declaration gives them (`flight_tables` in `src/state`). `sql_statements.rs`
//! and `oracle_sql.rs` hold their dialect's statements and migrations to it.
//! Included by path (`#[path = "common/columns.rs"]`), so an Oracle-only build
//! has it without the PostgreSQL test harness of `common/mod.rs`.

use flightstate::state::{
    Bridge, Carousel, Chock, Chute, Counter, Delay, FlightFields, Gate, RoutePoint, Stand, TableRow,
};

/// The key columns, then the columns `T` declares.
fn declared<T: TableRow>(keys: &[&str]) -> Vec<String> {
    keys.iter()
        .map(|k| (*k).to_owned())
        .chain(T::COLUMNS.iter().map(|(c, _)| (*c).to_owned()))
        .collect()
}

/// Each detail table as `(table, insert statement, columns in order)`.
pub fn detail_tables() -> Vec<(&'static str, &'static str, Vec<String>)> {
    let key = ["flid", "ordinal"];
    vec![
        ("flight_gate", "insert_gates", declared::<Gate>(&key)),
        (
            "flight_counter",
            "insert_counters",
            declared::<Counter>(&key),
        ),
        (
            "flight_carousel",
            "insert_carousels",
            declared::<Carousel>(&key),
        ),
        ("flight_stand", "insert_stands", declared::<Stand>(&key)),
        ("flight_chute", "insert_chutes", declared::<Chute>(&key)),
        ("flight_delay", "insert_delays", declared::<Delay>(&key)),
        ("flight_bridge", "insert_bridges", declared::<Bridge>(&key)),
        ("flight_chock", "insert_chocks", declared::<Chock>(&key)),
        (
            "flight_route_point",
            "insert_route_points",
            declared::<RoutePoint>(&["flid", "route_kind", "ordinal"]),
        ),
    ]
}

/// `FLIGHT_SCHD`'s columns in order: the FLID, the state's fields, then the
/// bookkeeping.
pub fn main_row() -> Vec<String> {
    let mut main = declared::<FlightFields>(&["flid"]);
    main.extend(
        [
            "operation_day",
            "state_version",
            "last_message_id",
            "updated_at",
            "state_digest",
            "state_document",
        ]
        .map(str::to_owned),
    );
    main
}
