//! The Oracle 11g dialect without a server: every statement of `sql/oracle/` and every script
//! of `migrations_oracle/` is pinned by a snapshot, carries its header, mirrors its
//! PostgreSQL twin (same file names, same columns), and passes a lint for what 11g refuses or
//! limits. The lint's rules are listed in [`statement_findings`] and [`ddl_findings`] (and in
//! `docs/oracle.md`); each rule has a case in `the_lint_catches_what_11g_refuses`.
#![cfg(feature = "oracle")]

#[path = "common/columns.rs"]
mod columns;

use std::collections::{BTreeMap, BTreeSet};

use flightstate::store::oracle::{
    clob_binds, migration_scripts, oracle_only_statements, script_statements, statements,
};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `sql/pg/` statements whose Oracle twin is still to write, each with why: a colleague's
/// change in progress. Keep this list short and say what the Oracle side does meanwhile.
const PENDING_TWINS: &[(&str, &str)] = &[];

/// A `COPY … FROM STDIN` of PostgreSQL's full writes, and why Oracle has no twin of it.
macro_rules! copy_only {
    ($table:literal) => {
        (
            concat!("copy_", $table),
            concat!(
                "COPY FROM STDIN is PostgreSQL's bulk load (built by diesel from schema.rs, not a \
                 file of sql/pg/); Oracle loads the same rows as array DML through insert_",
                $table
            ),
        )
    };
}

/// PostgreSQL statements that have no Oracle twin by design, each with why (naming the
/// Oracle statement that does the same work).
const PG_ONLY: &[(&str, &str)] = &[
    copy_only!("gates"),
    copy_only!("counters"),
    copy_only!("carousels"),
    copy_only!("stands"),
    copy_only!("chutes"),
    copy_only!("delays"),
    copy_only!("bridges"),
    copy_only!("chocks"),
    copy_only!("route_points"),
    (
        "copy_flights",
        "new flights' main rows by COPY FROM STDIN are PostgreSQL's saving on array binds \
         (NewFlights::Copy; built by diesel from the state's columns, not a file of sql/pg/); \
         Oracle inserts new flights as array DML through insert_flights",
    ),
];

/// Files of `sql/pg/` with no Oracle twin by design, each with why.
const PG_ONLY_FILES: &[(&str, &str)] = &[
    (
        "select_applied_migrations",
        "diesel's history table; Oracle reads FLIGHTSTATE_MIGRATION with select_migrations",
    ),
    (
        "delete_flights_of_day",
        "a DELETE … RETURNING beside the new list's collection bind, which Oracle does not \
         bind (docs/oracle.md, \"No collection beside RETURNING\"); Oracle reads and locks the \
         same flights with lock_flights_of_day and deletes them by key with delete_flights",
    ),
    (
        "select_missing_privileges",
        "`flightstate doctor` checks table privileges on PostgreSQL only: Oracle's dialect runs \
         as the schema owner",
    ),
    (
        "set_idle_limit",
        "Oracle has no per-transaction limit on an idle transaction: the DBA's Resource \
         Manager (MAX_IDLE_BLOCKER_TIME) ends a frozen session, docs/pump.md \"A frozen holder\"",
    ),
    (
        "select_server_version",
        "Oracle's server and client versions come from the driver (ODPI-C), not a statement",
    ),
];

/// Oracle's reserved words (11.2 *SQL Language Reference*, "Oracle SQL Reserved Words"): not
/// usable as column names, nor as bind names (ORA-01745).
const RESERVED: &[&str] = &[
    "ACCESS",
    "ADD",
    "ALL",
    "ALTER",
    "AND",
    "ANY",
    "AS",
    "ASC",
    "AUDIT",
    "BETWEEN",
    "BY",
    "CHAR",
    "CHECK",
    "CLUSTER",
    "COLUMN",
    "COMMENT",
    "COMPRESS",
    "CONNECT",
    "CREATE",
    "CURRENT",
    "DATE",
    "DECIMAL",
    "DEFAULT",
    "DELETE",
    "DESC",
    "DISTINCT",
    "DROP",
    "ELSE",
    "EXCLUSIVE",
    "EXISTS",
    "FILE",
    "FLOAT",
    "FOR",
    "FROM",
    "GRANT",
    "GROUP",
    "HAVING",
    "IDENTIFIED",
    "IMMEDIATE",
    "IN",
    "INCREMENT",
    "INDEX",
    "INITIAL",
    "INSERT",
    "INTEGER",
    "INTERSECT",
    "INTO",
    "IS",
    "LEVEL",
    "LIKE",
    "LOCK",
    "LONG",
    "MAXEXTENTS",
    "MINUS",
    "MLSLABEL",
    "MODE",
    "MODIFY",
    "NOAUDIT",
    "NOCOMPRESS",
    "NOT",
    "NOWAIT",
    "NULL",
    "NUMBER",
    "OF",
    "OFFLINE",
    "ON",
    "ONLINE",
    "OPTION",
    "OR",
    "ORDER",
    "PCTFREE",
    "PRIOR",
    "PRIVILEGES",
    "PUBLIC",
    "RAW",
    "RENAME",
    "RESOURCE",
    "REVOKE",
    "ROW",
    "ROWID",
    "ROWNUM",
    "ROWS",
    "SELECT",
    "SESSION",
    "SET",
    "SHARE",
    "SIZE",
    "SMALLINT",
    "START",
    "SUCCESSFUL",
    "SYNONYM",
    "SYSDATE",
    "TABLE",
    "THEN",
    "TO",
    "TRIGGER",
    "UID",
    "UNION",
    "UNIQUE",
    "UPDATE",
    "USER",
    "VALIDATE",
    "VALUES",
    "VARCHAR",
    "VARCHAR2",
    "VIEW",
    "WHENEVER",
    "WHERE",
    "WITH",
];

/// Quoted literals a statement may hold: constants of the statement, never values (values
/// are binds). Anything else quoted fails the lint.
/// `set_current_schema`'s is the fixed text of the `ALTER SESSION` it splices a checked name
/// into (`ALTER SESSION` takes no bind).
const ALLOWED_LITERALS: &[&str] = &[
    "'FM999999990.00'",
    "'SECOND'",
    "'ALTER SESSION SET CURRENT_SCHEMA = '",
];

/// Statement text without its `--` lines.
fn body(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text with quoted literals and `/* */` comments blanked, upper-cased: what the keyword
/// rules look at.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_quote = false;
    while let Some(c) = chars.next() {
        if in_quote {
            if c == '\'' {
                in_quote = false;
                out.push('\'');
            }
            continue;
        }
        if c == '\'' {
            in_quote = true;
            out.push('\'');
        } else if c == '/' && chars.peek() == Some(&'*') {
            for d in chars.by_ref() {
                if d == '/' {
                    break;
                }
            }
            out.push(' ');
        } else {
            out.push(c.to_ascii_uppercase());
        }
    }
    out
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '#'))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn has_word_seq(code: &str, seq: &[&str]) -> bool {
    let w = words(code);
    w.windows(seq.len())
        .any(|win| win.iter().zip(seq).all(|(a, b)| a == b))
}

fn is_plsql(code: &str) -> bool {
    let start = code.trim_start();
    start.starts_with("BEGIN") || start.starts_with("DECLARE")
}

/// What 11g would refuse or limit in a statement sent through OCI. Rules:
/// IDENTITY; FETCH FIRST/NEXT and OFFSET; LIMIT; BOOLEAN and TRUE/FALSE; ON CONFLICT; UNNEST and
/// `= ANY(…)`/`<> ALL(…)` array forms; `::` casts; `$n` positional binds; RETURNING without
/// INTO; identifiers and bind names over 30 bytes; a trailing `;` outside PL/SQL; `''`
/// (Oracle's NULL) anywhere; quoted literals outside [`ALLOWED_LITERALS`]; PostgreSQL-only
/// functions (`now()`, `gen_random_uuid`, `make_interval`, `left(`, `jsonb`, `ILIKE`,
/// `string_agg`); REPEATABLE READ; `AS` before a table alias (Oracle allows `AS` for column
/// aliases only); a literal `IN` list of more than 1000 items; reserved words as bind names;
/// a CLOB bind before a shorter one, in a select list or `USING` clause, or in a statement
/// with `RETURNING`; a collection bind in a statement with `RETURNING`; an aggregate,
/// `DISTINCT` or `GROUP BY` (scalar subqueries included) beside `FOR UPDATE`; a bound id list
/// (`TABLE(CAST(…))`) without a `CARDINALITY` hint.
///
/// `long` are the statement's CLOB binds: for the statements of `sql/oracle/`, those the
/// binding code declares ([`declared_clob_binds`]), never a word of the header.
fn statement_findings(text: &str, long: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let body = body(text);
    let code = code_only(&body);
    let mut bad = |why: &str| found.push(why.to_owned());
    for (seq, why) in [
        (&["IDENTITY"][..], "IDENTITY (11g has sequences)"),
        (&["FETCH", "FIRST"], "FETCH FIRST (11g: ROWNUM)"),
        (&["FETCH", "NEXT"], "FETCH NEXT (11g: ROWNUM)"),
        (&["OFFSET"], "OFFSET (11g: ROWNUM)"),
        (&["LIMIT"], "LIMIT (11g: ROWNUM)"),
        (&["ON", "CONFLICT"], "ON CONFLICT (11g: MERGE)"),
        (&["UNNEST"], "UNNEST (11g: batch or collection)"),
        (&["REPEATABLE", "READ"], "REPEATABLE READ (Oracle has none)"),
        (&["ILIKE"], "ILIKE (PostgreSQL only)"),
        (&["JSONB"], "jsonb (PostgreSQL only)"),
        (&["STRING_AGG"], "string_agg (11g: LISTAGG)"),
        (&["GEN_RANDOM_UUID"], "gen_random_uuid (11g: SYS_GUID)"),
        (&["MAKE_INTERVAL"], "make_interval (11g: NUMTODSINTERVAL)"),
    ] {
        if has_word_seq(&code, seq) {
            bad(why);
        }
    }
    // PL/SQL has BOOLEAN (`release_on_commit => FALSE`); SQL has none in 11g.
    if !is_plsql(&code) {
        for word in ["BOOLEAN", "TRUE", "FALSE"] {
            if has_word_seq(&code, &[word]) {
                bad(&format!("{word} (no SQL BOOLEAN in 11g)"));
            }
        }
    }
    let compact: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    for (needle, why) in [
        ("= ANY", "= ANY (array form)"),
        ("=ANY", "= ANY (array form)"),
        ("<> ALL", "<> ALL (array form)"),
        ("::", ":: cast"),
        ("NOW()", "now() (bind the time)"),
        ("LEFT(", "left() (11g: SUBSTR)"),
    ] {
        if compact.contains(needle) {
            bad(why);
        }
    }
    if code
        .char_indices()
        .any(|(i, c)| c == '$' && code[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
    {
        bad("$n positional bind (Oracle: named :bind)");
    }
    let w = words(&code);
    if let Some(pos) = w.iter().position(|x| x == "RETURNING")
        && !w[pos..].iter().any(|x| x == "INTO")
    {
        bad("RETURNING without INTO");
    }
    let tokens: Vec<&str> = code.split_whitespace().collect();
    for win in tokens.windows(3) {
        let table_context = ["FROM", "JOIN", "UPDATE", "INTO", "USING"].contains(&win[0]);
        let identifier = win[1]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if table_context && identifier && win[2] == "AS" {
            bad("AS before a table alias");
        }
    }
    for word in &w {
        if word.len() > 30 {
            bad(&format!("identifier over 30 bytes: {word}"));
        }
    }
    for bind in binds(&body) {
        if bind.len() > 30 {
            bad(&format!("bind name over 30 bytes: {bind}"));
        }
        if RESERVED.contains(&bind.to_ascii_uppercase().as_str()) {
            bad(&format!("reserved word as a bind name: {bind}"));
        }
    }
    for literal in quoted(&body) {
        if literal == "''" {
            bad("'' (the empty string is NULL in Oracle)");
        } else if !ALLOWED_LITERALS.contains(&literal.as_str()) {
            bad(&format!("quoted literal {literal} (bind the value)"));
        }
    }
    // DBMS_LOCK user lock ids are 0 to 1073741823; a bound id cannot be checked here.
    if compact.contains("DBMS_LOCK.") {
        for after in compact.split("ID =>").skip(1) {
            let value = after
                .trim_start()
                .split([',', ')', ' '])
                .next()
                .unwrap_or("");
            match value.parse::<u64>() {
                Ok(id) if id > 1_073_741_823 => {
                    bad("DBMS_LOCK user lock id out of range 0-1073741823");
                }
                Ok(_) => {}
                Err(_) => {
                    bad("DBMS_LOCK lock id bound at run time (use ALLOCATE_UNIQUE and a lock name)")
                }
            }
        }
    }
    // OCI wants long (CLOB) binds after the short ones (ORA-24816); RETURNING's out-binds
    // come after them by construction.
    let in_binds = binds(body.split("RETURNING").next().unwrap_or(&body));
    if let Some(first_long) = in_binds.iter().position(|b| long.contains(b))
        && let Some(short) = in_binds[first_long..].iter().find(|b| !long.contains(b))
    {
        bad(&format!(
            "long bind :{} before the short bind :{short} (put CLOB binds last)",
            in_binds[first_long]
        ));
    }
    // A LOB bind is taken where a column is written (VALUES, SET), not where a row is
    // computed: in a select list (MERGE's USING, INSERT … SELECT) a value over 4,000 bytes
    // fails with ORA-01461, and with RETURNING every bind is sent at execute time
    // (ORA-22816 territory).
    for bind in long {
        let uses = bind_positions(&code, bind);
        if uses
            .iter()
            .any(|&at| in_select_list(&code, at) || in_using_clause(&code, at))
        {
            bad(&format!(
                "LOB bind :{bind} in a select list or USING clause (write it in VALUES or SET)"
            ));
        }
        if !uses.is_empty() && w.iter().any(|x| x == "RETURNING") {
            bad(&format!(
                "LOB bind :{bind} with RETURNING (take the key first, insert without RETURNING)"
            ));
        }
    }
    // With RETURNING, ODPI-C binds every variable dynamically and hands an object bind
    // through a callback: an input collection there is a path no test of ODPI-C or the
    // `oracle` crate covers (ORA-21525/22060/03146 or worse on first contact).
    if !is_plsql(&code) && w.iter().any(|x| x == "RETURNING") {
        for bind in collection_binds(&code) {
            bad(&format!(
                "collection bind :{bind} with RETURNING (lock the rows by the list, then change \
                 them by key)"
            ));
        }
    }
    // 11g refuses aggregates, DISTINCT and GROUP BY in a FOR UPDATE query (ORA-01786), and
    // whether it takes a COUNT in a scalar subquery beside FOR UPDATE SKIP LOCKED has not been
    // shown on an 11.2 server: counts go in a statement of their own.
    if has_word_seq(&code, &["FOR", "UPDATE"]) {
        for word in ["COUNT", "SUM", "MIN", "MAX", "AVG", "DISTINCT", "GROUP"] {
            if has_word_seq(&code, &[word]) {
                bad(&format!(
                    "{word} beside FOR UPDATE (count in a statement of its own)"
                ));
            }
        }
    }
    for list in id_lists_without_cardinality(&body) {
        bad(&format!(
            "id list {list} without a CARDINALITY hint in its query block (the optimiser \
             guesses 8,168 rows)"
        ));
    }
    if !is_plsql(&code) && body.trim_end().ends_with(';') {
        bad("trailing ; (OCI refuses it outside PL/SQL)");
    }
    for list in code.split(" IN (").skip(1) {
        let items = list.split(')').next().unwrap_or("").matches(',').count() + 1;
        if items > 1000 && !list.trim_start().starts_with("SELECT") {
            bad("IN list over 1000 items");
        }
    }
    found
}

/// Each bound collection read as a table (`TABLE(CAST(:flids AS …)) ids`) whose query block
/// has no `CARDINALITY(<alias> n)` hint, by its bind: left unhinted, the optimiser takes a
/// collection for 8,168 rows and may scan a table for one FLID. Hints are comments, so this
/// reads the body as written, not [`code_only`].
fn id_lists_without_cardinality(body: &str) -> Vec<String> {
    let upper = body.to_ascii_uppercase();
    let mut out = Vec::new();
    for (at, _) in upper.match_indices("TABLE(CAST(") {
        let list = &upper[at + "TABLE(CAST(".len()..];
        let bind = list.split_whitespace().next().unwrap_or("").to_owned();
        let alias: String = list
            .find("))")
            .map(|end| list[end + 2..].trim_start())
            .unwrap_or("")
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let hint = upper[..at]
            .rfind("SELECT")
            .and_then(|select| upper[select..at].split("/*+").nth(1))
            .and_then(|hint| hint.split("*/").next())
            .unwrap_or("");
        if alias.is_empty() || !hint.contains(&format!("CARDINALITY({alias} ")) {
            out.push(bind);
        }
    }
    out
}

/// The binds `code` (upper-cased, see [`code_only`]) reads as a SQL collection:
/// `TABLE(CAST(:x AS …))`, `CAST(:x AS …)` and `TABLE(:x)`, lower case.
fn collection_binds(code: &str) -> Vec<String> {
    let compact: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    let compact = compact.replace("( ", "(");
    let mut out: Vec<String> = Vec::new();
    for opener in ["CAST(:", "TABLE(:"] {
        for (at, _) in compact.match_indices(opener) {
            let name: String = compact[at + opener.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let name = name.to_ascii_lowercase();
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Where `:bind` is used in `code` (upper-cased, see [`code_only`]).
fn bind_positions(code: &str, bind: &str) -> Vec<usize> {
    let needle = format!(":{}", bind.to_ascii_uppercase());
    code.match_indices(&needle)
        .filter(|(at, _)| {
            !code[at + needle.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        })
        .map(|(at, _)| at)
        .collect()
}

/// Whether byte `at` of `code` lies between a `SELECT` and its `FROM`.
fn in_select_list(code: &str, at: usize) -> bool {
    let before = words(&code[..at]);
    let select = before.iter().rposition(|w| w == "SELECT");
    let from = before.iter().rposition(|w| w == "FROM");
    matches!((select, from), (Some(s), f) if f.is_none_or(|f| f < s))
}

/// Whether byte `at` of `code` lies in a MERGE's `USING …` before its `ON`.
fn in_using_clause(code: &str, at: usize) -> bool {
    let before = words(&code[..at]);
    let using = before.iter().rposition(|w| w == "USING");
    let on = before.iter().rposition(|w| w == "ON");
    before.first().map(String::as_str) == Some("MERGE")
        && matches!((using, on), (Some(u), o) if o.is_none_or(|o| o < u))
}

/// The CLOB binds of statement `name` as the binding code declares them
/// (`flightstate::store::oracle::clob_binds`, which `binds::ClobBind` requires of every
/// long bind it sends), lower case.
fn declared_clob_binds(name: &str) -> Vec<String> {
    clob_binds()
        .iter()
        .filter(|(statement, _)| *statement == name)
        .map(|(_, bind)| bind.to_ascii_lowercase())
        .collect()
}

/// The binds a statement's header documents as `clob` (`:payload clob`): for people, and
/// checked against [`declared_clob_binds`].
fn documented_clob_binds(text: &str) -> Vec<String> {
    let header: String = text
        .lines()
        .filter(|l| l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join(" ");
    let tokens: Vec<&str> = header.split_whitespace().collect();
    tokens
        .windows(2)
        .filter(|w| {
            w[0].starts_with(':')
                && w[1]
                    .trim_end_matches([',', ';'])
                    .eq_ignore_ascii_case("clob")
        })
        .map(|w| w[0].trim_start_matches(':').to_ascii_lowercase())
        .collect()
}

/// Named binds (`:flid`) of a statement, in order of first use.
fn binds(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let code = body.replace(":=", "  ");
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    let mut in_quote = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c == '\'' {
            in_quote = !in_quote;
        } else if c == ':' && !in_quote {
            let name: String = bytes[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                .collect();
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
        i += 1;
    }
    out
}

fn quoted(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match (&mut current, c) {
            (None, '\'') => current = Some("'".to_owned()),
            (Some(s), '\'') if chars.peek() == Some(&'\'') => {
                s.push_str("''");
                chars.next();
            }
            (Some(s), '\'') => {
                s.push('\'');
                out.push(std::mem::take(s));
                current = None;
            }
            (Some(s), c) => s.push(c),
            (None, _) => {}
        }
    }
    out
}

/// What 11g would refuse, or what breaks the mirror, in a migration statement. Rules: the
/// PostgreSQL types whose 11g names differ (TEXT, BIGINT, INTEGER, SMALLINT, SERIAL, BOOLEAN,
/// BYTEA, NUMERIC, DOUBLE PRECISION, TIMESTAMP(0) — DESIGN §3 says DATE —, TIMESTAMPTZ, JSON,
/// JSONB, UUID, `VARCHAR(`); `VARCHAR2(n)` without CHAR semantics; `VARCHAR2` over 4000;
/// IDENTITY; partial indexes (`CREATE INDEX … WHERE`); IF [NOT] EXISTS; the `~` regex
/// operator; `::` casts; identifiers over 30 bytes; reserved words as column names; a blank
/// line inside a statement (SQL*Plus ends the statement there); a line starting with `#`
/// (a SQL*Plus command).
fn ddl_findings(statement: &str) -> Vec<String> {
    let mut found = Vec::new();
    let code = code_only(statement);
    let mut bad = |why: String| found.push(why);
    for (seq, why) in [
        (&["TEXT"][..], "TEXT (11g: CLOB or VARCHAR2)"),
        (&["BIGINT"], "BIGINT (11g: NUMBER(19))"),
        (&["INTEGER"], "INTEGER (use NUMBER(10))"),
        (&["SMALLINT"], "SMALLINT (use NUMBER(5))"),
        (&["SERIAL"], "SERIAL (11g: sequence)"),
        (&["BIGSERIAL"], "BIGSERIAL (11g: sequence)"),
        (&["BOOLEAN"], "BOOLEAN (11g: a CHECKed NUMBER(1) or CHAR)"),
        (&["BYTEA"], "BYTEA (11g: RAW or BLOB)"),
        (&["NUMERIC"], "NUMERIC (use NUMBER(p,s))"),
        (
            &["DOUBLE", "PRECISION"],
            "DOUBLE PRECISION (11g: BINARY_DOUBLE)",
        ),
        (&["TIMESTAMP", "0"], "TIMESTAMP(0) (DESIGN §3: DATE)"),
        (&["TIMESTAMPTZ"], "TIMESTAMPTZ"),
        (&["JSON"], "JSON (not a type in 11g)"),
        (&["JSONB"], "JSONB"),
        (&["UUID"], "UUID (not a type in 11g)"),
        (&["VARCHAR"], "VARCHAR (use VARCHAR2)"),
        (&["IDENTITY"], "IDENTITY (11g has sequences)"),
        (&["IF", "NOT", "EXISTS"], "IF NOT EXISTS"),
        (&["IF", "EXISTS"], "IF EXISTS"),
    ] {
        if has_word_seq(&code, seq) {
            bad(why.to_owned());
        }
    }
    let w = words(&code);
    if w.first().map(String::as_str) == Some("CREATE")
        && w.iter().take(3).any(|x| x == "INDEX")
        && w.iter().any(|x| x == "WHERE")
    {
        bad("partial index (11g: function-based index)".to_owned());
    }
    if code.contains("::") {
        bad(":: cast".to_owned());
    }
    if code.contains(" ~ ") {
        bad("~ regex operator (11g: REGEXP_LIKE)".to_owned());
    }
    for (i, word) in w.iter().enumerate() {
        if word == "VARCHAR2" {
            let size: Vec<&String> = w[i + 1..].iter().take(2).collect();
            match size.as_slice() {
                [n, unit] if unit.as_str() == "CHAR" => {
                    if n.parse::<u32>().map_or(true, |n| n > 4000) {
                        bad(format!("VARCHAR2({n} CHAR) over 4000"));
                    }
                }
                _ => bad("VARCHAR2 without CHAR length semantics".to_owned()),
            }
        }
        if word.len() > 30 {
            bad(format!("identifier over 30 bytes: {word}"));
        }
    }
    for (name, _) in created_columns(statement) {
        if RESERVED.contains(&name.as_str()) {
            bad(format!("reserved word as a column name: {name}"));
        }
    }
    // The claims rely on a flight's outbox rows having rising ids in write order; on RAC a
    // NOORDER sequence hands each instance its own cached range.
    if let ["CREATE", "SEQUENCE", name, ..] = w.iter().map(String::as_str).collect::<Vec<_>>()[..]
        && name.starts_with("KAFKA_")
        && !w.iter().any(|x| x == "ORDER")
    {
        bad(format!(
            "outbox sequence {name} without ORDER (RAC: ids out of write order)"
        ));
    }
    if statement.lines().any(|l| l.trim().is_empty()) {
        bad("blank line inside a statement (SQL*Plus would end it there)".to_owned());
    }
    if statement.lines().any(|l| l.trim_start().starts_with('#')) {
        bad("line starting with # (a SQL*Plus command)".to_owned());
    }
    found
}

/// The `INITRANS n` among `words`, or Oracle's default of 2 for an index.
fn initrans(words: &[String]) -> u32 {
    words
        .windows(2)
        .find(|w| w[0] == "INITRANS")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(2)
}

/// The indexes of the tables written under SERIALIZABLE (created `ROWDEPENDENCIES`: the
/// outbox) that have fewer interested-transaction slots (`INITRANS`) than their table, after
/// `statements` ran in order: under SERIALIZABLE a transaction that finds no free slot in an
/// index block fails with ORA-08177, and ROWDEPENDENCIES covers table rows only. Counts the
/// keys' implicit indexes (named after their constraint; `USING INDEX … INITRANS n`), every
/// `CREATE INDEX … ON` such a table and `ALTER INDEX … REBUILD INITRANS n`.
fn serializable_index_findings(statements: &[String]) -> Vec<String> {
    let mut tables: BTreeMap<String, u32> = BTreeMap::new();
    let mut indexes: BTreeMap<String, (String, u32)> = BTreeMap::new();
    for statement in statements {
        let code = code_only(statement);
        let w = words(&code);
        let head: Vec<&str> = w.iter().take(7).map(String::as_str).collect();
        match head[..] {
            ["CREATE", "TABLE", table, ..] => {
                if !w.iter().any(|x| x == "ROWDEPENDENCIES") {
                    continue;
                }
                let end = code.rfind(')').unwrap_or(code.len());
                tables.insert(table.to_owned(), initrans(&words(&code[end..])));
                let columns = words(&code[..end]);
                for (i, word) in columns.iter().enumerate() {
                    let keyed = matches!(
                        columns.get(i + 2).map(String::as_str),
                        Some("PRIMARY" | "UNIQUE")
                    );
                    if word == "CONSTRAINT" && keyed {
                        let clause: Vec<String> = columns[i + 1..]
                            .iter()
                            .take_while(|x| *x != "CONSTRAINT")
                            .cloned()
                            .collect();
                        indexes.insert(
                            columns[i + 1].clone(),
                            (table.to_owned(), initrans(&clause)),
                        );
                    }
                }
            }
            [
                "ALTER",
                "TABLE",
                table,
                "ADD",
                "CONSTRAINT",
                name,
                "PRIMARY" | "UNIQUE",
            ] => {
                indexes.insert(name.to_owned(), (table.to_owned(), initrans(&w)));
            }
            ["CREATE", "INDEX", name, "ON", table, ..]
            | ["CREATE", "UNIQUE", "INDEX", name, "ON", table, ..] => {
                let after_key = code.rfind(')').map_or("", |end| &code[end..]);
                indexes.insert(
                    name.to_owned(),
                    (table.to_owned(), initrans(&words(after_key))),
                );
            }
            ["ALTER", "INDEX", name, "REBUILD", ..] => {
                if let Some(index) = indexes.get_mut(name) {
                    index.1 = initrans(&w);
                }
            }
            ["DROP", "INDEX", name, ..] => {
                indexes.remove(name);
            }
            _ => {}
        }
    }
    indexes
        .iter()
        .filter_map(|(name, (table, slots))| {
            let needed = *tables.get(table)?;
            (*slots < needed).then(|| {
                format!(
                    "index {name} of {table}, written under SERIALIZABLE, has INITRANS {slots}, \
                     its table {needed} (ORA-08177 when a block runs out of slots)"
                )
            })
        })
        .collect()
}

/// The `NOT NULL` text columns (`VARCHAR2`, `CLOB`) of every table, as the `V` scripts create
/// and extend them: table → columns, upper case.
fn not_null_text_columns() -> BTreeMap<String, BTreeSet<String>> {
    let is_text = |kind: &str| {
        let kind = kind.to_ascii_uppercase();
        (kind.starts_with("VARCHAR2") || kind.starts_with("CLOB")) && kind.contains("NOT NULL")
    };
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, _, text) in migration_scripts() {
        for statement in script_statements(text) {
            let w = words(&code_only(&statement));
            match w.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["CREATE", "TABLE", table, ..] => {
                    let columns = out.entry(table.to_owned()).or_default();
                    for (column, kind) in created_columns(&statement) {
                        if is_text(&kind) {
                            columns.insert(column);
                        }
                    }
                }
                ["ALTER", "TABLE", table, "ADD", ..] => {
                    if let Some(column) = added_column(&statement, table) {
                        let column = column.to_ascii_uppercase();
                        let kind = code_only(&statement);
                        let kind = kind.split(&column).nth(1).unwrap_or("");
                        if is_text(kind.trim_start()) {
                            out.entry(table.to_owned()).or_default().insert(column);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// `text` cut into its items at the commas outside parentheses.
fn split_top(text: &str) -> Vec<String> {
    let mut items = vec![String::new()];
    let mut depth = 0_i32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(String::new());
                continue;
            }
            _ => {}
        }
        items.last_mut().expect("an item").push(c);
    }
    items.into_iter().map(|i| i.trim().to_owned()).collect()
}

/// Where the word `word` first starts in `code` outside parentheses, from `from` on.
fn find_top_word(code: &str, word: &str, from: usize) -> Option<usize> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == ':';
    let mut depth = 0_i32;
    for (i, c) in code.char_indices().skip_while(|(i, _)| *i < from) {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0
                && code[i..].starts_with(word)
                && !code[..i].ends_with(ident)
                && !code[i + word.len()..].starts_with(ident) =>
            {
                return Some(i);
            }
            _ => {}
        }
    }
    None
}

/// The parenthesised group that starts at `open` (a `(`), without its parentheses, and the
/// index after its `)`.
fn group(code: &str, open: usize) -> Option<(&str, usize)> {
    let mut depth = 0_i32;
    for (i, c) in code[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some((&code[open + 1..open + i], open + i + 1));
                }
            }
            _ => {}
        }
    }
    None
}

/// The table a write statement writes and the `(column, expression)` pairs it assigns:
/// INSERT's column list against its `VALUES` or `SELECT` list (MERGE's too), and UPDATE's and
/// MERGE's `SET`. `None` for a statement that writes no table.
fn assignments(body: &str) -> Option<(String, Vec<(String, String)>)> {
    let code = code_only(body);
    let w = words(&code);
    let table = match w.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["INSERT", "INTO", table, ..] | ["MERGE", "INTO", table, ..] | ["UPDATE", table, ..] => {
            table.to_owned()
        }
        _ => return None,
    };
    let mut pairs = Vec::new();
    let mut from = 0;
    while let Some(insert) = find_top_word(&code, "INSERT", from) {
        from = insert + 1;
        let Some((columns, after)) = code[insert..]
            .find('(')
            .and_then(|open| group(&code, insert + open))
        else {
            continue;
        };
        let rest = code[after..].trim_start();
        let start = code.len() - rest.len();
        let values = if rest.starts_with("VALUES") {
            code[start..]
                .find('(')
                .and_then(|open| group(&code, start + open))
                .map(|(values, _)| values.to_owned())
        } else if rest.starts_with("SELECT") {
            let end = find_top_word(&code, "FROM", start).unwrap_or(code.len());
            Some(code[start + "SELECT".len()..end].to_owned())
        } else {
            None
        };
        if let Some(values) = values {
            pairs.extend(split_top(columns).into_iter().zip(split_top(&values)));
        }
    }
    if let Some(set) = find_top_word(&code, "SET", 0) {
        let start = set + "SET".len();
        let end = ["WHERE", "RETURNING", "WHEN"]
            .iter()
            .filter_map(|kw| find_top_word(&code, kw, start))
            .min()
            .unwrap_or(code.len());
        for item in split_top(&code[start..end]) {
            if let Some((column, expression)) = item.split_once('=') {
                let column = column.trim();
                let column = column.rsplit('.').next().unwrap_or(column);
                pairs.push((column.to_owned(), expression.trim().to_owned()));
            }
        }
    }
    Some((table, pairs))
}

/// What `src/store/nonempty.rs` guards: statement name → the guard function and the columns
/// it refuses empty (upper case), read from the guard functions `refuse_empty_*` (their first
/// literal is the statement's name, their upper-case literals the columns).
fn nonempty_guards() -> BTreeMap<String, (String, BTreeSet<String>)> {
    let source =
        std::fs::read_to_string(format!("{ROOT}/src/store/nonempty.rs")).expect("nonempty.rs");
    let source = source.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = BTreeMap::new();
    for chunk in source.split("fn refuse_empty_").skip(1) {
        let guard: String = chunk
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let body = chunk.split("\n}\n").next().unwrap_or(chunk);
        let literals: Vec<&str> = body.split('"').skip(1).step_by(2).collect();
        if let Some((op, rest)) = literals.split_first() {
            let columns = rest
                .iter()
                .filter(|l| l.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
                .map(|l| (*l).to_owned())
                .collect();
            out.insert((*op).to_owned(), (format!("refuse_empty_{guard}"), columns));
        }
    }
    out
}

/// The `.rs` files under `dir` (relative to the crate), subdirectories included, sorted.
fn rust_sources(dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(format!("{ROOT}/{dir}")).expect("a source directory") {
        let name = entry
            .expect("an entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let path = format!("{dir}/{name}");
        if std::path::Path::new(&format!("{ROOT}/{path}")).is_dir() {
            out.extend(rust_sources(&path));
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Every function of `src/store/<dialect>/` that runs statement `name` (`sql::NAME`) and does
/// not call `guard` before it; a finding too when no function runs it.
fn unguarded_callers(dialect: &str, name: &str, guard: &str) -> Vec<String> {
    let constant = format!("sql::{}", name.to_ascii_uppercase());
    let call = format!("nonempty::{guard}(");
    let mut callers = 0;
    let mut found = Vec::new();
    for path in rust_sources(&format!("src/store/{dialect}")) {
        let source = std::fs::read_to_string(format!("{ROOT}/{path}")).expect("a dialect source");
        for (at, _) in source.match_indices(&constant) {
            if source[at + constant.len()..]
                .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            {
                continue;
            }
            callers += 1;
            let before = &source[..at];
            let function = &before[before.rfind("fn ").unwrap_or(0)..];
            if !function.contains(&call) {
                found.push(format!("{path} runs {name} without {call}…) before it"));
            }
        }
    }
    if callers == 0 {
        found.push(format!(
            "src/store/{dialect}/ never runs {name}, so nothing guards it"
        ));
    }
    found
}

/// `''` is NULL in Oracle: a text bind into a `NOT NULL` `VARCHAR2`/`CLOB` column fails with
/// ORA-01400 when its value is empty (PostgreSQL would store it). Rule: every bind that
/// reaches such a column (the columns from the migrations, the binds from the statement's
/// INSERT, MERGE and SET lists, through MERGE's `USING (SELECT :x AS X …)` aliases) is named
/// on a `-- nonempty: :bind, … <why>` header line, and every bind named there reaches one.
/// The why is either
///
/// - `store::nonempty`: the repository refuses an empty value before the statement. Checked
///   against the sources, not a list kept here: `src/store/nonempty.rs` has a guard for the
///   statement that names each bind's column, and every function of each dialect that runs
///   the statement (`sql::NAME` in `src/store/oracle/`, and in `src/store/pg/` when
///   `sql/pg/` has the statement) calls that guard before it. A list in this test would still
///   pass after a guard call was deleted; reading the sources fails then.
/// - anything else: why the value can never be empty (a code of a Rust enum, a constant, a
///   digest). The lint cannot check that reason, only that one is written where the DBA
///   reads the statement.
fn empty_text_findings(
    name: &str,
    text: &str,
    not_null: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let mut found = Vec::new();
    let body = body(text);
    let Some((table, pairs)) = assignments(&body) else {
        return found;
    };
    let columns = not_null.get(&table).cloned().unwrap_or_default();
    if !columns.is_empty() && pairs.is_empty() {
        found.push(format!("cannot read which columns it writes into {table}"));
    }
    // `:x AS X` in MERGE's USING: `s.X` in the assignments is `:x`.
    let code = code_only(&body);
    let tokens: Vec<&str> = code.split_whitespace().collect();
    let aliases: BTreeMap<String, String> = tokens
        .windows(3)
        .filter(|w| w[0].starts_with(':') && w[1] == "AS")
        .map(|w| {
            let alias = w[2].trim_end_matches(',').to_owned();
            (alias, w[0].trim_start_matches(':').to_ascii_lowercase())
        })
        .collect();
    let mut reaching: BTreeMap<String, String> = BTreeMap::new();
    for (column, expression) in &pairs {
        if !columns.contains(column) {
            continue;
        }
        let through_alias = words(expression).into_iter().filter_map(|word| {
            aliases
                .get(word.rsplit('.').next().unwrap_or(&word))
                .cloned()
        });
        for bind in binds(expression)
            .into_iter()
            .map(|b| b.to_ascii_lowercase())
            .chain(through_alias)
        {
            reaching.insert(bind, column.clone());
        }
    }
    // A `-- nonempty:` line, with the indented `--     :bind` lines that continue it.
    let mut entries: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("-- nonempty:") {
            entries.push(rest.to_owned());
            open = true;
        } else if let Some(rest) = line.strip_prefix("--  ")
            && open
            && rest.trim_start().starts_with(':')
        {
            let entry = entries.last_mut().expect("an open entry");
            entry.push(' ');
            entry.push_str(rest);
        } else {
            open = false;
        }
    }
    let mut named: BTreeMap<String, String> = BTreeMap::new();
    for entry in &entries {
        let mut tokens = entry.split_whitespace().peekable();
        let mut line_binds = Vec::new();
        while let Some(bind) = tokens.next_if(|t| t.starts_with(':')) {
            line_binds.push(bind.trim_matches([':', ',']).to_ascii_lowercase());
        }
        let why = tokens.collect::<Vec<_>>().join(" ");
        if line_binds.is_empty() || why.is_empty() {
            found.push(format!("`-- nonempty:{entry}` names no bind or no reason"));
        }
        for bind in line_binds {
            named.insert(bind, why.clone());
        }
    }
    for (bind, column) in &reaching {
        if !named.contains_key(bind) {
            found.push(format!(
                ":{bind} into NOT NULL {table}.{column} may be empty ('' is NULL: ORA-01400); \
                 refuse it first (store::nonempty) or say why it never is (-- nonempty:)"
            ));
        }
    }
    let guards = nonempty_guards();
    let mut guarded = false;
    for (bind, why) in &named {
        let Some(column) = reaching.get(bind) else {
            found.push(format!(
                "-- nonempty: names :{bind}, which reaches no NOT NULL text column"
            ));
            continue;
        };
        if !why.contains("store::nonempty") {
            continue;
        }
        guarded = true;
        match guards.get(name) {
            Some((guard, refused)) if !refused.contains(column) => found.push(format!(
                ":{bind} is said refused by store::nonempty, but {guard} does not check {column}"
            )),
            Some(_) => {}
            None => found.push(format!(
                ":{bind} is said refused by store::nonempty, which has no guard for {name}"
            )),
        }
    }
    if guarded && let Some((guard, _)) = guards.get(name) {
        let pg = std::path::Path::new(&format!("{ROOT}/sql/pg/{name}.sql")).is_file();
        for dialect in ["oracle"].into_iter().chain(pg.then_some("pg")) {
            found.extend(unguarded_callers(dialect, name, guard));
        }
    }
    found
}

/// The type names a column definition may start with (both dialects), so that a `CHECK`'s
/// continuation line is never taken for a column.
const COLUMN_TYPES: &[&str] = &[
    "NUMBER",
    "VARCHAR2",
    "DATE",
    "TIMESTAMP",
    "CLOB",
    "BLOB",
    "RAW",
    "CHAR",
    "BIGINT",
    "VARCHAR",
    "INTEGER",
    "SMALLINT",
    "NUMERIC",
    "TEXT",
    "BOOLEAN",
];

/// The columns of a `CREATE TABLE` statement, with their type text.
fn created_columns(statement: &str) -> Vec<(String, String)> {
    let upper = statement.trim_start().to_ascii_uppercase();
    if !upper.starts_with("CREATE TABLE") {
        return Vec::new();
    }
    statement
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.starts_with("--") && !l.starts_with("CONSTRAINT") && !l.starts_with(')'))
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let name = parts.next()?;
            let rest: Vec<&str> = parts.collect();
            (!rest.is_empty()).then(|| {
                (
                    name.to_ascii_uppercase(),
                    rest.join(" ").trim_end_matches(',').to_owned(),
                )
            })
        })
        .filter(|(name, kind)| {
            let type_name = kind
                .split(|c: char| c == '(' || c.is_whitespace())
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && COLUMN_TYPES.contains(&type_name.as_str())
        })
        .collect()
}

fn statement(name: &str) -> &'static str {
    statements()
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("no statement {name}"))
}

fn dir_names(dir: &str, ext: &str) -> BTreeSet<String> {
    std::fs::read_dir(format!("{ROOT}/{dir}"))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter_map(|f| f.strip_suffix(ext).map(str::to_owned))
        .collect()
}

#[test]
fn every_statement_is_pinned() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/sql/oracle");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, text) in statements() {
            insta::assert_snapshot!(*name, text.replace("\r\n", "\n"));
        }
    });
}

#[test]
fn every_migration_is_pinned() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/migrations_oracle");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for file in dir_names("migrations_oracle", ".sql") {
            let text = std::fs::read_to_string(format!("{ROOT}/migrations_oracle/{file}.sql"))
                .expect("read a script");
            insta::assert_snapshot!(file.as_str(), text.replace("\r\n", "\n"));
        }
    });
}

#[test]
fn sql_oracle_has_the_file_names_of_sql_pg() {
    let pg = dir_names("sql/pg", ".sql");
    let oracle = dir_names("sql/oracle", ".sql");
    let only: BTreeSet<String> = oracle_only_statements()
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let missing: BTreeSet<&str> = pg.difference(&oracle).map(String::as_str).collect();
    let pending: BTreeSet<&str> = PENDING_TWINS
        .iter()
        .chain(PG_ONLY_FILES)
        .map(|(name, _)| *name)
        .collect();
    let unexplained: Vec<_> = missing.difference(&pending).collect();
    assert!(
        unexplained.is_empty(),
        "sql/oracle/ lacks twins of {unexplained:?}"
    );
    let extra: BTreeSet<String> = oracle.difference(&pg).cloned().collect();
    assert_eq!(extra, only, "Oracle-only statements must be listed as such");
    // Every file is compiled in, and only those.
    let compiled: BTreeSet<String> = statements().iter().map(|(n, _)| (*n).to_owned()).collect();
    assert_eq!(compiled, oracle);
}

/// Every PostgreSQL statement that is not a file of `sql/pg/` (the COPY statements diesel
/// builds) is listed in [`PG_ONLY`] with why, and the Oracle statement its reason names exists.
#[cfg(feature = "postgres")]
#[test]
fn postgres_only_statements_are_listed_with_why() {
    let copies: BTreeSet<&str> = flightstate::store::pg::copy_statements()
        .iter()
        .map(|(name, _)| *name)
        .collect();
    let listed: BTreeSet<&str> = PG_ONLY.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        copies, listed,
        "PostgreSQL-only statements must be listed with why"
    );
    let oracle = dir_names("sql/oracle", ".sql");
    for (name, why) in PG_ONLY {
        assert!(
            !oracle.contains(*name),
            "{name} is listed PostgreSQL-only but has a twin"
        );
        let instead = why
            .rsplit(' ')
            .next()
            .expect("the reason names an Oracle statement");
        assert!(
            oracle.contains(instead),
            "{name}: the reason names {instead}, which sql/oracle/ lacks"
        );
    }
}

#[test]
fn every_statement_documents_itself() {
    for (name, text) in statements() {
        assert!(
            text.starts_with(&format!("-- name: {name}\n")),
            "{name}: header"
        );
        for key in ["-- binds", "-- returns:", "-- locks:"] {
            assert!(text.contains(key), "{name}: no `{key}` line");
        }
        // Every bind the statement uses is named in its header.
        let header: String = text
            .lines()
            .filter(|l| l.starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n");
        for bind in binds(&body(text)) {
            assert!(
                header.contains(&format!(":{bind}")),
                "{name}: bind :{bind} is not documented"
            );
        }
    }
}

#[test]
fn every_statement_passes_the_11g_lint() {
    let mut failures = Vec::new();
    let not_null = not_null_text_columns();
    for (name, text) in statements() {
        for finding in statement_findings(text, &declared_clob_binds(name))
            .into_iter()
            .chain(empty_text_findings(name, text, &not_null))
        {
            failures.push(format!("sql/oracle/{name}.sql: {finding}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The lint takes a statement's CLOB binds from the binding code's declaration: each declared
/// bind is a bind of an existing statement, and each statement's header calls `clob` exactly
/// the declared binds, so that what a DBA reads, what the lint checks and what the code sends
/// are one list.
#[test]
fn clob_binds_are_those_the_binding_code_declares() {
    let mut failures = Vec::new();
    for (statement_name, bind) in clob_binds() {
        match statements().iter().find(|(n, _)| n == statement_name) {
            None => failures.push(format!("{statement_name}: no such statement")),
            Some((_, text)) if !binds(&body(text)).iter().any(|b| b == bind) => {
                failures.push(format!("{statement_name}: no bind :{bind}"));
            }
            Some(_) => {}
        }
    }
    for (name, text) in statements() {
        let mut declared = declared_clob_binds(name);
        let mut documented = documented_clob_binds(text);
        declared.sort();
        documented.sort();
        if declared != documented {
            failures.push(format!(
                "{name}: the header calls {documented:?} clob, the code binds {declared:?} as CLOB"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_migration_statement_passes_the_11g_lint() {
    let mut failures = Vec::new();
    for file in dir_names("migrations_oracle", ".sql") {
        let text = std::fs::read_to_string(format!("{ROOT}/migrations_oracle/{file}.sql"))
            .expect("read a script");
        assert!(
            text.starts_with("--") && text.contains("WHENEVER SQLERROR EXIT FAILURE\n"),
            "{file}: header"
        );
        for statement in script_statements(&text) {
            for finding in ddl_findings(&statement) {
                let first = statement.lines().next().unwrap_or("");
                failures.push(format!("{file}: {finding} in `{first}`"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_index_of_a_table_written_under_serializable_has_its_tables_slots() {
    let statements: Vec<String> = migration_scripts()
        .iter()
        .flat_map(|(_, _, text)| script_statements(text))
        .collect();
    let findings = serializable_index_findings(&statements);
    assert!(findings.is_empty(), "{}", findings.join("\n"));
    // Before V016 the keys had the default.
    let before_v016: Vec<String> = migration_scripts()
        .iter()
        .filter(|(version, _, _)| *version < 16)
        .flat_map(|(_, _, text)| script_statements(text))
        .collect();
    let findings = serializable_index_findings(&before_v016);
    assert_eq!(findings.len(), 2, "{findings:?}");
    assert!(findings[0].starts_with("index KAFKA_MSG_PK of KAFKA_MSG"));
    assert!(findings[1].starts_with("index KAFKA_SCHD_PK of KAFKA_SCHD"));
}

#[test]
fn the_lint_catches_what_11g_refuses() {
    let statement_cases = [
        ("SELECT 1 FROM T LIMIT :n", "LIMIT"),
        ("SELECT A FROM T FETCH FIRST 10 ROWS ONLY", "FETCH FIRST"),
        ("SELECT A FROM T OFFSET 5 ROWS", "OFFSET"),
        (
            "INSERT INTO T (A) VALUES (:a) ON CONFLICT (A) DO NOTHING",
            "ON CONFLICT",
        ),
        ("SELECT * FROM UNNEST(:a)", "UNNEST"),
        ("DELETE FROM T WHERE A = ANY (:a)", "= ANY"),
        ("SELECT A::text FROM T", ":: cast"),
        ("SELECT A FROM T WHERE B = $1", "$n positional"),
        (
            "DELETE FROM T WHERE A = :a RETURNING A",
            "RETURNING without INTO",
        ),
        ("SELECT A FROM T WHERE B = TRUE", "TRUE"),
        ("SELECT A FROM T WHERE B = ''", "empty string is NULL"),
        ("SELECT A FROM T WHERE B = 'X'", "quoted literal"),
        ("SELECT A FROM T\n;", "trailing ;"),
        ("SELECT A FROM T AS x", "AS before a table alias"),
        (
            "SELECT A FROM T WHERE B = :level",
            "reserved word as a bind name",
        ),
        (
            "SELECT A FROM FLIGHT_SCHD_WITH_A_VERY_LONG_NAME_X",
            "identifier over 30 bytes",
        ),
        ("SELECT now() FROM DUAL", "now()"),
        (
            "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "REPEATABLE READ",
        ),
        (
            "CREATE TABLE T (A NUMBER GENERATED ALWAYS AS IDENTITY)",
            "IDENTITY",
        ),
    ];
    let statement_cases = statement_cases.into_iter().chain([
        (
            "BEGIN\n    :s := DBMS_LOCK.REQUEST(id => 1718812673, lockmode => 6);\nEND;",
            "lock id out of range",
        ),
        (
            "BEGIN\n    :s := DBMS_LOCK.REQUEST(id => :lock_id, lockmode => 6);\nEND;",
            "bound at run time",
        ),
        (
            "-- binds: :payload clob, :message_id number\nINSERT INTO T (P, M) VALUES (:payload, :message_id)",
            "long bind :payload before the short bind :message_id",
        ),
        (
            "-- binds: :flid number, :doc clob\nMERGE INTO T t\nUSING (SELECT :flid AS FLID, :doc AS DOC FROM DUAL) s\n\
             ON (t.FLID = s.FLID)\nWHEN MATCHED THEN UPDATE SET t.DOC = s.DOC",
            "LOB bind :doc in a select list or USING clause",
        ),
        (
            "-- binds: :flid number, :doc clob\nINSERT INTO T (FLID, DOC) SELECT :flid, :doc FROM DUAL",
            "LOB bind :doc in a select list or USING clause",
        ),
        (
            "-- binds: :key varchar2, :payload clob; out :id number\n\
             INSERT INTO T (ID, K, P) VALUES (T_SEQ.NEXTVAL, :key, :payload) RETURNING ID INTO :id",
            "LOB bind :payload with RETURNING",
        ),
        (
            "DELETE FROM T WHERE FLID IN (SELECT COLUMN_VALUE FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)))",
            "id list :FLIDS without a CARDINALITY hint",
        ),
        (
            "SELECT k.A, (SELECT COUNT(*) FROM T p WHERE p.F = k.F) AS N FROM T k \
             WHERE k.B IS NULL FOR UPDATE SKIP LOCKED",
            "COUNT beside FOR UPDATE",
        ),
        (
            "-- binds: :flids FLIGHTSTATE_ID_LIST; out :flid number\n\
             DELETE FROM T WHERE FLID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE \
             FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids) RETURNING FLID INTO :flid",
            "collection bind :flids with RETURNING",
        ),
        (
            "-- binds: :ids FLIGHTSTATE_ID_LIST; out :n number\n\
             UPDATE T SET N = N + 1 WHERE ID IN (SELECT COLUMN_VALUE FROM TABLE( :ids )) \
             RETURNING N INTO :n",
            "collection bind :ids with RETURNING",
        ),
        (
            "SELECT /*+ LEADING(ids) USE_NL(d) */ d.A\nFROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids, T d\n\
             WHERE d.FLID = ids.COLUMN_VALUE",
            "id list :FLIDS without a CARDINALITY hint",
        ),
        (
            "SELECT /*+ CARDINALITY(other 10) */ d.A\nFROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids, T d\n\
             WHERE d.FLID = ids.COLUMN_VALUE",
            "id list :FLIDS without a CARDINALITY hint",
        ),
    ]);
    for (sql, rule) in statement_cases {
        let text = format!("-- name: x\n{sql}");
        let found = statement_findings(&text, &documented_clob_binds(&text));
        assert!(
            found.iter().any(|f| f.contains(rule)),
            "`{sql}` should break `{rule}`, found {found:?}"
        );
    }
    assert!(statement_findings("BEGIN\n    :s := F(id => :lock_id);\nEND;", &[]).is_empty());
    // An empty text into a NOT NULL column: ORA-01400 on Oracle alone, unless refused first.
    let not_null = not_null_text_columns();
    let unguarded = "-- name: x\nINSERT INTO KAFKA_MSG (EVENT_ID, MESSAGE_ID, CHANGE_KIND, CREATED_AT, PAYLOAD)\n\
                     VALUES (KAFKA_MSG_SEQ.NEXTVAL, :message_id, :change_kind, :now, :payload)";
    let found = empty_text_findings("x", unguarded, &not_null);
    assert!(
        found
            .iter()
            .any(|f| f.contains(":change_kind into NOT NULL KAFKA_MSG.CHANGE_KIND may be empty")),
        "{found:?}"
    );
    let claimed = format!("-- nonempty: :change_kind, :payload  store::nonempty\n{unguarded}");
    let found = empty_text_findings("x", &claimed, &not_null);
    assert!(
        found.iter().any(|f| f.contains("no guard for x")),
        "{found:?}"
    );
    let ddl_cases = [
        ("CREATE TABLE T (\n    A TEXT\n)", "TEXT"),
        ("CREATE TABLE T (\n    A BIGINT\n)", "BIGINT"),
        ("CREATE TABLE T (\n    A TIMESTAMP(0)\n)", "TIMESTAMP(0)"),
        ("CREATE TABLE T (\n    A VARCHAR(16)\n)", "VARCHAR "),
        ("CREATE TABLE T (\n    A VARCHAR2(16)\n)", "without CHAR"),
        (
            "CREATE TABLE T (\n    A VARCHAR2(5000 CHAR)\n)",
            "over 4000",
        ),
        ("CREATE TABLE T (\n    A BOOLEAN\n)", "BOOLEAN"),
        ("CREATE TABLE T (\n    LEVEL NUMBER(5)\n)", "reserved word"),
        (
            "CREATE INDEX T_IX ON T (A) WHERE B IS NULL",
            "partial index",
        ),
        (
            "CREATE TABLE T (\n    A NUMBER(5),\n\n    B NUMBER(5)\n)",
            "blank line",
        ),
        (
            "ALTER TABLE T ADD CONSTRAINT T_CK CHECK (A ~ 'x')",
            "~ regex",
        ),
        (
            "CREATE TABLE IF NOT EXISTS T (\n    A NUMBER(5)\n)",
            "IF NOT EXISTS",
        ),
        (
            "CREATE SEQUENCE KAFKA_SCHD_SEQ START WITH 1 CACHE 100 NOORDER",
            "without ORDER",
        ),
    ];
    for (sql, rule) in ddl_cases {
        let found = ddl_findings(sql);
        assert!(
            found.iter().any(|f| f.contains(rule)),
            "`{sql}` should break `{rule}`, found {found:?}"
        );
    }
    // An outbox-like table: its key and an index keep the default two slots.
    let table =
        "CREATE TABLE T (\n    A NUMBER(19) NOT NULL,\n    CONSTRAINT T_PK PRIMARY KEY (A)\n)\n\
                 INITRANS 8\nROWDEPENDENCIES"
            .to_owned();
    let bad = [table.clone(), "CREATE INDEX T_IX ON T (A, B)".to_owned()];
    let found = serializable_index_findings(&bad);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("index T_IX of T") && found[0].contains("INITRANS 2"));
    assert!(found[1].starts_with("index T_PK of T"));
    let fixed = [
        table.replace("PRIMARY KEY (A)", "PRIMARY KEY (A) USING INDEX INITRANS 8"),
        "CREATE INDEX T_IX ON T (A, B) INITRANS 2".to_owned(),
        "ALTER INDEX T_IX REBUILD INITRANS 8".to_owned(),
    ];
    assert_eq!(serializable_index_findings(&fixed), Vec::<String>::new());
    // A table not written under SERIALIZABLE keeps the defaults.
    let plain = [
        table.replace("\nROWDEPENDENCIES", ""),
        "CREATE INDEX T_IX ON T (A)".to_owned(),
    ];
    assert_eq!(serializable_index_findings(&plain), Vec::<String>::new());
}

/// The `CREATE` statements of every `V` script, by object kind and name.
fn created_objects() -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (_, _, text) in migration_scripts() {
        for statement in script_statements(text) {
            let w = words(&code_only(&statement));
            if w.first().map(String::as_str) == Some("CREATE") {
                let (kind, name) = match w.get(1).map(String::as_str) {
                    Some("UNIQUE") => ("INDEX", w.get(3)),
                    Some(kind) => (kind, w.get(2)),
                    None => continue,
                };
                if let Some(name) = name {
                    out.insert((kind.to_owned(), name.clone()));
                }
            }
        }
    }
    out
}

#[test]
fn migrations_mirror_postgres_and_undo_what_they_create() {
    // One numbered script per PostgreSQL migration, same name, plus V000 (the history).
    let pg: Vec<String> = std::fs::read_dir(format!("{ROOT}/migrations_pg"))
        .expect("migrations_pg")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let scripts = migration_scripts();
    assert_eq!(
        scripts.len(),
        pg.len() + 1,
        "a migration lacks its Oracle twin"
    );
    for (i, name) in pg.iter().enumerate() {
        let (version, oracle_name, _) = scripts[i + 1];
        // `2026-12-01-000015_cleanup` is V015: the numbers are the same, gaps and all.
        let number: Option<u16> = name
            .split('_')
            .next()
            .and_then(|stamp| stamp.rsplit('-').next())
            .and_then(|n| n.parse().ok());
        assert_eq!(
            Some(version),
            number,
            "{name} vs V{version:03}__{oracle_name}"
        );
        assert!(
            name.ends_with(&format!("_{oracle_name}")),
            "{name} vs V{version:03}__{oracle_name}"
        );
    }
    // The compiled-in list is the directory, and every V has its U.
    let files = dir_names("migrations_oracle", ".sql");
    for (version, name, text) in scripts {
        let v = format!("V{version:03}__{name}");
        assert!(files.contains(&v), "{v} is not in migrations_oracle/");
        let on_disk =
            std::fs::read_to_string(format!("{ROOT}/migrations_oracle/{v}.sql")).expect("read");
        assert_eq!(on_disk, *text, "{v}");
        assert!(
            files.contains(&format!("U{version:03}__{name}")),
            "no undo of {v}"
        );
    }
    assert_eq!(files.len(), scripts.len() * 2, "a stray script");
    // Every table, sequence and type created is dropped by an undo script; indexes go with
    // their table unless created on a table of an earlier script.
    let mut drops = BTreeSet::new();
    for file in files.iter().filter(|f| f.starts_with('U')) {
        let text =
            std::fs::read_to_string(format!("{ROOT}/migrations_oracle/{file}.sql")).expect("read");
        for statement in script_statements(&text) {
            let w = words(&code_only(&statement));
            if w.first().map(String::as_str) == Some("DROP")
                && let (Some(kind), Some(name)) = (w.get(1), w.get(2))
            {
                drops.insert((kind.clone(), name.clone()));
            }
        }
    }
    for (kind, name) in created_objects() {
        if kind == "INDEX" {
            continue;
        }
        assert!(
            drops.contains(&(kind.clone(), name.clone())),
            "{kind} {name} is never dropped"
        );
    }
    assert!(drops.contains(&("INDEX".to_owned(), "KAFKA_MSG_FLID_PENDING_IX".to_owned())));
}

#[test]
fn every_table_and_column_has_a_comment() {
    for (version, name, text) in migration_scripts() {
        let statements = script_statements(text);
        let comments: Vec<String> = statements
            .iter()
            .filter(|s| s.starts_with("COMMENT ON"))
            .map(|s| s.split(" IS ").next().unwrap_or("").to_owned())
            .collect();
        for statement in &statements {
            let w = words(&code_only(statement));
            if !(w.first().map(String::as_str) == Some("CREATE")
                && w.get(1).map(String::as_str) == Some("TABLE"))
            {
                continue;
            }
            let table = &w[2];
            assert!(
                comments.contains(&format!("COMMENT ON TABLE {table}")),
                "V{version:03}__{name}: no comment on table {table}"
            );
            for (column, _) in created_columns(statement) {
                assert!(
                    comments.contains(&format!("COMMENT ON COLUMN {table}.{column}")),
                    "V{version:03}__{name}: no comment on {table}.{column}"
                );
            }
        }
    }
}

/// The column added by an `ALTER TABLE <table> ADD` statement (either dialect's spelling:
/// `ADD COLUMN X …` or `ADD (X …)`), lower case.
fn added_column(statement: &str, table: &str) -> Option<String> {
    let w = words(&code_only(statement));
    let is_add = w.len() > 4
        && w[0] == "ALTER"
        && w[1] == "TABLE"
        && w[2].eq_ignore_ascii_case(table)
        && w[3] == "ADD";
    is_add.then(|| {
        let name = if w[4] == "COLUMN" { &w[5] } else { &w[4] };
        name.to_ascii_lowercase()
    })
}

/// The columns of `table` as the `V` scripts create and extend it, lower case, in order.
fn migrated_columns(table: &str) -> Vec<String> {
    let mut columns: Option<Vec<String>> = None;
    for (_, _, text) in migration_scripts() {
        for statement in script_statements(text) {
            if statement.starts_with(&format!("CREATE TABLE {} (", table.to_ascii_uppercase())) {
                columns = Some(
                    created_columns(&statement)
                        .into_iter()
                        .map(|(c, _)| c.to_ascii_lowercase())
                        .collect(),
                );
            } else if let (Some(cols), Some(added)) =
                (&mut columns, added_column(&statement, table))
            {
                cols.push(added);
            }
        }
    }
    columns.unwrap_or_else(|| panic!("no CREATE TABLE {table}"))
}

/// The columns an insert or merge statement names, in order, lower case.
fn insert_columns(name: &str) -> Vec<String> {
    let code = body(statement(name));
    let start = code
        .find("INSERT INTO")
        .and_then(|i| code[i..].find('(').map(|j| i + j + 1));
    let start = start
        .or_else(|| code.find("INSERT (").map(|i| i + 8))
        .expect("column list");
    let end = code[start..].find(')').expect("column list end") + start;
    code[start..end]
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect()
}

#[test]
fn statements_rust_and_migrations_agree_on_every_column() {
    for (table, insert, rust) in columns::detail_tables() {
        assert_eq!(
            insert_columns(insert),
            rust,
            "{insert} vs the Rust declaration"
        );
        let mut migrated = migrated_columns(table);
        let mut rust_sorted = rust.clone();
        migrated.sort();
        rust_sorted.sort();
        assert_eq!(migrated, rust_sorted, "{table} vs the Rust declaration");
        // The binds are the columns, by name.
        assert_eq!(binds(&body(statement(insert))), rust, "{insert} binds");
    }
    let mut main = columns::main_row();
    assert_eq!(insert_columns("insert_flights"), main, "insert_flights");
    assert_eq!(
        binds(&body(statement("insert_flights"))),
        main,
        "insert_flights binds"
    );
    assert_eq!(migrated_columns("flight_schd"), main);
    // The MERGE writes every column but the document, which update_state_documents writes
    // by FLID (a CLOB bind stays out of the MERGE's select list).
    let document = main.pop();
    assert_eq!(document.as_deref(), Some("state_document"));
    assert_eq!(insert_columns("upsert_flights"), main, "upsert_flights");
    assert_eq!(
        binds(&body(statement("upsert_flights"))),
        main,
        "upsert_flights binds"
    );
    assert_eq!(
        binds(&body(statement("update_state_documents"))),
        ["flid", "state_document"],
        "update_state_documents binds"
    );
}

#[test]
fn oracle_tables_mirror_postgres_column_for_column() {
    // Every PostgreSQL table and column exists in Oracle, in the same order, after every
    // migration of both (CREATE TABLE, then ALTER TABLE … ADD).
    let mut ups: Vec<std::path::PathBuf> = std::fs::read_dir(format!("{ROOT}/migrations_pg"))
        .expect("migrations_pg")
        .map(|e| e.expect("entry").path().join("up.sql"))
        .filter(|p| p.is_file())
        .collect();
    ups.sort();
    let mut pg: Vec<(String, Vec<String>)> = Vec::new();
    for up in ups {
        let text = std::fs::read_to_string(&up).expect("read up.sql");
        for statement in text.split(";\n") {
            let statement = statement
                .lines()
                .filter(|l| !l.trim_start().starts_with("--") && !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            if statement.starts_with("CREATE TABLE") {
                let table = words(&statement)[2].to_ascii_lowercase();
                let columns = created_columns(&statement)
                    .into_iter()
                    .map(|(c, _)| c.to_ascii_lowercase())
                    .collect();
                pg.push((table, columns));
            } else if statement.starts_with("ALTER TABLE") {
                let table = words(&statement)[2].to_ascii_lowercase();
                if let (Some(added), Some((_, columns))) = (
                    added_column(&statement, &table),
                    pg.iter_mut().find(|(t, _)| *t == table),
                ) {
                    columns.push(added);
                }
            }
        }
    }
    assert!(pg.len() >= 17, "the PostgreSQL tables were not all read");
    for (table, columns) in pg {
        assert_eq!(migrated_columns(&table), columns, "{table}");
    }
}
