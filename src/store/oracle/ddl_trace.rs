//! What a migration's DDL statement leaves in the data dictionary, and whether the schema
//! holds it already: a resumed `flightstate migrate` asks before running the statement it
//! stopped at, since Oracle DDL commits on its own, before the runner records the step.

use oracle::Connection;

use super::binds::Text;
use super::errors::at;
use super::statements as sql;
use crate::store::StoreError;

/// What a DDL statement leaves in the data dictionary, so that a resumed run can tell
/// whether it already ran (DDL commits on its own, before the runner records the step).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum DdlTrace {
    /// An object of `USER_OBJECTS`: (name, `OBJECT_TYPE`).
    Object(String, &'static str),
    /// A column of `USER_TAB_COLUMNS`: (table, column).
    Column(String, String),
    /// A constraint of `USER_CONSTRAINTS`: (table, constraint).
    Constraint(String, String),
    /// No such constraint any more (`DROP CONSTRAINT`): (table, constraint).
    NoConstraint(String, String),
}

fn identifier(word: &str) -> String {
    word.trim_matches('"').to_ascii_uppercase()
}

/// What `statement` creates, when it is DDL that cannot simply run twice: `CREATE TABLE`,
/// `CREATE [UNIQUE | BITMAP] INDEX`, `CREATE SEQUENCE`, `CREATE TYPE` and the other stored
/// units without `OR REPLACE`, `ALTER TABLE … ADD (column …)`, `ALTER TABLE … ADD CONSTRAINT`
/// and `ALTER TABLE … DROP CONSTRAINT` (which leaves the constraint gone). `None` for anything else:
/// `COMMENT ON`, `CREATE OR REPLACE` and `ALTER INDEX … REBUILD` run again harmlessly, and DML
/// commits only with the step that records it.
pub(super) fn leaves(statement: &str) -> Option<DdlTrace> {
    let upper = statement.to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| c.is_whitespace() || c == '(' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let object = |kind: &'static str, name: &str| Some(DdlTrace::Object(identifier(name), kind));
    match words.as_slice() {
        ["CREATE", "TABLE", name, ..] => object("TABLE", name),
        ["CREATE", "INDEX", name, ..]
        | ["CREATE", "UNIQUE", "INDEX", name, ..]
        | ["CREATE", "BITMAP", "INDEX", name, ..] => object("INDEX", name),
        ["CREATE", "SEQUENCE", name, ..] => object("SEQUENCE", name),
        ["CREATE", "TYPE", name, ..] => object("TYPE", name),
        ["CREATE", "PROCEDURE", name, ..] => object("PROCEDURE", name),
        ["CREATE", "FUNCTION", name, ..] => object("FUNCTION", name),
        ["CREATE", "PACKAGE", "BODY", name, ..] => object("PACKAGE BODY", name),
        ["CREATE", "PACKAGE", name, ..] => object("PACKAGE", name),
        ["CREATE", "TRIGGER", name, ..] => object("TRIGGER", name),
        ["ALTER", "TABLE", table, "ADD", "CONSTRAINT", name, ..] => {
            Some(DdlTrace::Constraint(identifier(table), identifier(name)))
        }
        ["ALTER", "TABLE", table, "DROP", "CONSTRAINT", name, ..] => {
            Some(DdlTrace::NoConstraint(identifier(table), identifier(name)))
        }
        ["ALTER", "TABLE", table, "ADD", column, ..] => {
            Some(DdlTrace::Column(identifier(table), identifier(column)))
        }
        _ => None,
    }
}

/// Whether the schema already holds what `statement` leaves (see [`leaves`]).
pub(super) fn already_done(conn: &Connection, statement: &str) -> Result<bool, StoreError> {
    let n: i64 = match leaves(statement) {
        None => return Ok(false),
        Some(DdlTrace::Object(name, kind)) => conn
            .query_row_as_named(
                sql::SELECT_SCHEMA_OBJECT,
                &[
                    ("object_name", &Text(Some(&name))),
                    ("object_type", &Text(Some(kind))),
                ],
            )
            .map_err(at("select_schema_object"))?,
        Some(DdlTrace::Column(table, column)) => conn
            .query_row_as_named(
                sql::SELECT_TABLE_COLUMN,
                &[
                    ("table_name", &Text(Some(&table))),
                    ("column_name", &Text(Some(&column))),
                ],
            )
            .map_err(at("select_table_column"))?,
        Some(DdlTrace::Constraint(table, name)) => constraints(conn, &table, &name)?,
        Some(DdlTrace::NoConstraint(table, name)) => {
            return Ok(constraints(conn, &table, &name)? == 0);
        }
    };
    Ok(n > 0)
}

/// How many constraints named `name` `table` has (0 or 1).
fn constraints(conn: &Connection, table: &str, name: &str) -> Result<i64, StoreError> {
    conn.query_row_as_named(
        sql::SELECT_TABLE_CONSTRAINT,
        &[
            ("table_name", &Text(Some(table))),
            ("constraint_name", &Text(Some(name))),
        ],
    )
    .map_err(at("select_table_constraint"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddl_names_what_it_leaves_in_the_dictionary() {
        let object = |name: &str, kind: &'static str| Some(DdlTrace::Object(name.to_owned(), kind));
        assert_eq!(
            leaves("CREATE TABLE T (\n    A NUMBER(5)\n)"),
            object("T", "TABLE")
        );
        assert_eq!(leaves("CREATE TABLE T(A NUMBER(5))"), object("T", "TABLE"));
        assert_eq!(
            leaves("CREATE UNIQUE INDEX T_UX ON T (A)"),
            object("T_UX", "INDEX")
        );
        assert_eq!(
            leaves("CREATE INDEX t_ix ON T (A)"),
            object("T_IX", "INDEX")
        );
        assert_eq!(
            leaves("CREATE SEQUENCE S_SEQ START WITH 1 CACHE 100 ORDER"),
            object("S_SEQ", "SEQUENCE")
        );
        assert_eq!(
            leaves("CREATE TYPE L AS TABLE OF NUMBER(19)"),
            object("L", "TYPE")
        );
        assert_eq!(
            leaves("CREATE PACKAGE BODY K AS\nEND;"),
            object("K", "PACKAGE BODY")
        );
        assert_eq!(
            leaves("ALTER TABLE FLIGHT_SCHD ADD (\n    STATE_DIGEST VARCHAR2(64 CHAR)\n)"),
            Some(DdlTrace::Column(
                "FLIGHT_SCHD".into(),
                "STATE_DIGEST".into()
            ))
        );
        // A column with its LOB storage (V009).
        assert_eq!(
            leaves(
                "ALTER TABLE FLIGHT_SCHD ADD (\n    STATE_DOCUMENT   CLOB\n)\n\
                 LOB (STATE_DOCUMENT) STORE AS BASICFILE (ENABLE STORAGE IN ROW CACHE RETENTION)"
            ),
            Some(DdlTrace::Column(
                "FLIGHT_SCHD".into(),
                "STATE_DOCUMENT".into()
            ))
        );
        assert_eq!(
            leaves("ALTER TABLE T ADD CONSTRAINT T_CK CHECK (A > 0)"),
            Some(DdlTrace::Constraint("T".into(), "T_CK".into()))
        );
        assert_eq!(
            leaves("ALTER TABLE T DROP CONSTRAINT t_ck"),
            Some(DdlTrace::NoConstraint("T".into(), "T_CK".into()))
        );
        assert_eq!(leaves("COMMENT ON TABLE T IS 'x'"), None);
        assert_eq!(
            leaves("CREATE OR REPLACE PROCEDURE P AS BEGIN NULL; END;"),
            None
        );
        assert_eq!(leaves("INSERT INTO T (A) VALUES (1)"), None);
        assert_eq!(leaves("ALTER INDEX T_PK REBUILD INITRANS 8"), None);
    }
}
