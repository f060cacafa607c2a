//! The Oracle 11g dialect of the state database (the `oracle` crate, r2d2).
//!
//! Submodules stay private: `errors` is the one place where Oracle failures become a
//! [`FailureKind`](crate::FailureKind), `binds` types every value that reaches the driver,
//! `conn` parses the URL and opens sessions, `store` holds the pool and the transaction guard
//! that rolls back in `Drop`, `migrate` applies `migrations_oracle/`. Statements come only
//! from `sql/oracle/` (`statements`). The Oracle client library is loaded at run time, on the
//! first connection: the dialect builds and its unit tests run without it.

mod action;
mod binds;
mod browse;
mod cleanup;
mod conn;
mod ddl_trace;
mod dead;
mod errors;
mod evidence;
mod journal;
mod lease;
mod limits;
mod migrate;
mod outbox;
mod read;
mod replay;
mod republish;
mod request;
mod resync;
pub(crate) mod statements;
mod store;
mod tail;
mod tx;

pub use limits::SessionLimits;
pub use migrate::{
    inspect, run_pending_migrations, schema_level, script_statements, session_limits,
};
pub use store::OracleStore;
pub use tx::OracleTx;

/// Every handwritten statement of the dialect as `(file name, text)`, for DBA review
/// (`flightstate sql --dialect oracle`) and the snapshot tests.
pub fn statements() -> &'static [(&'static str, &'static str)] {
    statements::ALL
}

/// The statements `sql/oracle/` has and `sql/pg/` has not (the Oracle migration runner's).
pub fn oracle_only_statements() -> &'static [&'static str] {
    statements::ORACLE_ONLY
}

/// The binds that carry long text into a `CLOB` column, as `(statement, bind)`: the
/// declaration the binding code takes its long binds from, for the 11g lint.
pub fn clob_binds() -> &'static [(&'static str, &'static str)] {
    statements::CLOB_BINDS
}

/// Every `V` script of `migrations_oracle/` as `(version, name, text)`, in the order
/// `flightstate migrate` applies them.
pub fn migration_scripts() -> &'static [(u16, &'static str, &'static str)] {
    migrate::SCRIPTS
}
