//! Every PostgreSQL statement the pump and the dispatcher run finds its rows
//! by an index, so that their cost does not grow with a year of history:
//! each statement's generic plan (`plan_cache_mode = force_generic_plan`,
//! the plan a prepared statement keeps whatever its binds) is read with
//! `EXPLAIN` under `enable_seqscan = off`, where PostgreSQL reads a table
//! whole only when no index can serve the statement. The test checks the
//! plans' shape, never a time.
//!
//! The statements that read a table whole on purpose are listed with why
//! (the operator's and the clean-up's, which walk what they report on).
#![cfg(feature = "postgres")]

mod common;

use std::collections::BTreeMap;

use common::TestDatabase;
use diesel::sql_types::Text;
use diesel::{QueryableByName, RunQueryDsl};

/// Statements that may read a table whole, and why. Every other statement
/// must use an index for every table it reads.
const WHOLE_READS: &[(&str, &str)] = &[
    (
        "select_applied_migrations",
        "the migration runner reads its own table, a row per migration",
    ),
    (
        "select_proc_counts",
        "the status counts every PROC_STATE row by status and kind; the table is bounded by cleanup.proc_state_days",
    ),
    (
        "raise_state_versions",
        "`flightstate resync` raises every stored flight it walks, batch by batch, with the pump stopped; the generic plan may merge its batch with the key's whole order",
    ),
    (
        "select_requests",
        "the status lists the requests, live ones first, an order no index serves; REQ_TRACK holds the few requests an operator makes",
    ),
    (
        "select_seqn_senders",
        "the status lists every inbound sender: a handful of rows",
    ),
    (
        "select_stale_snapshot_days",
        "the clean-up looks for a flight of each old ledger's day, off the pump's path",
    ),
];

#[derive(QueryableByName)]
struct PlanLine {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

/// The highest `$n` a statement binds.
fn parameters(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut highest = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'$' {
            let digits: String = text[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse::<usize>() {
                highest = highest.max(n);
            }
        }
    }
    highest
}

/// The types of `$1`, `$2`, … as the statement's header gives them
/// (`-- binds: $1 bigint  …, $2 date  …`), in order; `None` when the header
/// does not name them all.
fn bind_types(text: &str) -> Option<Vec<String>> {
    let mut binds = String::new();
    let mut inside = false;
    for line in text.lines() {
        let Some(comment) = line.trim_start().strip_prefix("--") else {
            break;
        };
        let comment = comment.trim_start();
        if comment.starts_with("binds:") {
            inside = true;
        } else if comment.starts_with("returns:") || comment.starts_with("locks:") {
            inside = false;
        }
        if inside {
            binds.push_str(comment);
            binds.push(' ');
        }
    }
    let mut types = BTreeMap::new();
    let words: Vec<&str> = binds.split_whitespace().collect();
    for pair in words.windows(2) {
        if let Some(n) = pair[0]
            .strip_prefix('$')
            .and_then(|n| n.parse::<usize>().ok())
        {
            types.insert(n, pair[1].trim_end_matches(',').to_owned());
        }
    }
    let count = parameters(text);
    (1..=count)
        .map(|n| types.get(&n).cloned())
        .collect::<Option<Vec<_>>>()
}

/// Drops the `-- ` header a statement file starts with.
fn body(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The plan nodes that read a table whole: a sequential scan, or an index
/// scan without an index condition over a whole index (`partial`: the
/// partial indexes, which hold only the rows their predicate names, such
/// as the outbox's pending rows), unless it only feeds a `Limit` unfiltered
/// (the first rows of the index's order, as many as the limit).
fn whole_reads(plan: &[&str], partial: &[String]) -> Vec<String> {
    let limited = plan
        .first()
        .is_some_and(|l| l.trim_start().starts_with("Limit"));
    let mut whole = Vec::new();
    for (i, line) in plan.iter().enumerate() {
        let node = line.trim().trim_start_matches("->").trim();
        if node.starts_with("Seq Scan on") {
            whole.push(node.to_owned());
        } else if node.starts_with("Index Scan") || node.starts_with("Index Only Scan") {
            let details: Vec<&str> = plan[i + 1..]
                .iter()
                .take_while(|l| !l.contains("->"))
                .copied()
                .collect();
            let conditioned = details.iter().any(|l| l.contains("Index Cond:"));
            let filtered = details.iter().any(|l| l.contains("Filter:"));
            let on_partial = partial
                .iter()
                .any(|index| node.contains(&format!("using {index} ")));
            if !conditioned && !on_partial && (filtered || !limited) {
                whole.push(format!("{node} (no index condition)"));
            }
        }
    }
    whole
}

#[derive(QueryableByName)]
struct IndexName {
    #[diesel(sql_type = Text)]
    name: String,
}

#[test]
fn every_statement_of_the_hot_path_uses_an_index() {
    let db = TestDatabase::migrated();
    let mut conn = db.connect();
    diesel::sql_query("SET plan_cache_mode = force_generic_plan")
        .execute(&mut conn)
        .expect("generic plans");
    diesel::sql_query("SET enable_seqscan = off")
        .execute(&mut conn)
        .expect("no sequential scan unless needed");
    let allowed: BTreeMap<&str, &str> = WHOLE_READS.iter().copied().collect();
    let partial: Vec<String> = diesel::sql_query(
        "SELECT c.relname::text AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
         WHERE i.indpred IS NOT NULL",
    )
    .load::<IndexName>(&mut conn)
    .expect("partial indexes")
    .into_iter()
    .map(|i| i.name)
    .collect();
    assert!(
        !partial.is_empty(),
        "the outbox's pending rows have partial indexes"
    );
    let mut scans = Vec::new();
    let mut unprepared = Vec::new();
    for (name, text) in flightstate::store::pg::statements() {
        // Utility statements (`SET TRANSACTION …`) read no table.
        if body(text).trim_start().starts_with("SET ") {
            continue;
        }
        let types = bind_types(text);
        let text = body(text);
        let prepare = match types {
            Some(types) if !types.is_empty() => {
                format!("PREPARE plan_{name} ({}) AS {text}", types.join(", "))
            }
            _ => format!("PREPARE plan_{name} AS {text}"),
        };
        if let Err(e) = diesel::sql_query(&prepare).execute(&mut conn) {
            unprepared.push(format!("{name}: {e}"));
            continue;
        }
        let nulls = vec!["NULL"; parameters(&text)].join(", ");
        let explain = if nulls.is_empty() {
            format!("EXPLAIN EXECUTE plan_{name}")
        } else {
            format!("EXPLAIN EXECUTE plan_{name}({nulls})")
        };
        let plan: Vec<PlanLine> = diesel::sql_query(&explain)
            .load(&mut conn)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let lines: Vec<&str> = plan.iter().map(|p| p.line.as_str()).collect();
        let whole = whole_reads(&lines, &partial);
        if !whole.is_empty() && !allowed.contains_key(name) {
            scans.push(format!("{name}: {}", whole.join("; ")));
        }
    }
    assert!(
        unprepared.is_empty(),
        "statements whose plan could not be read:\n{}",
        unprepared.join("\n")
    );
    assert!(
        scans.is_empty(),
        "statements that read a table whole:\n{}",
        scans.join("\n")
    );
}
