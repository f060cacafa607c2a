//! `GET /flight/{FLID}`: one flight's current state for a person — its
//! times in order, every resource table with its source sequence, the
//! route, the bookkeeping (operation day, state version, last message) and
//! the JSON document behind it.
//!
//! Read in one read-only snapshot, like `/all/flights`: the main row, one
//! statement per detail table and the last message's `PROC_STATE` record,
//! so the statements do not grow with the flight. Every value is escaped.

use std::fmt::Write as _;

use super::chrome;
use super::html::escape;
use super::reply::Reply;
use super::search::direction;
use crate::state::{ColumnValues, FlightFields, StateDocument, StoredFlight, TableRow};
use crate::store::{DeadOps, MessageRecord, ProcStatus, ReadOps, StateTx, Store, StoreError};

/// A flight and the record of the message that last changed it, of one
/// snapshot.
struct Read {
    flight: StoredFlight,
    last_message: Option<MessageRecord>,
}

fn read<S: Store>(store: &S, flid: i64) -> Result<Option<Read>, StoreError> {
    store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        let Some(flight) = tx.load_flights(&[flid])?.into_values().next() else {
            return Ok(None);
        };
        let last_message = tx.select_message_record(flight.last_message_id)?;
        Ok(Some(Read {
            flight,
            last_message,
        }))
    })
}

/// The answer to `GET /flight/{flid}`.
pub(super) fn get<S: Store>(store: &S, flid: &str, query: &str) -> Reply {
    if !query.is_empty() {
        return chrome::error(400, "this page takes no parameters");
    }
    let flid = match flid.parse::<i64>() {
        Ok(flid) if flid > 0 => flid,
        _ => return chrome::error(400, &format!("{flid:?} is not a FLID (a positive integer)")),
    };
    match read(store, flid) {
        Ok(Some(read)) => chrome::html(200, render(&read)),
        Ok(None) => chrome::error(404, &format!("no flight {flid}")),
        Err(e) => {
            tracing::warn!(flid, error = format!("{e:#}"), "a flight page read failed");
            chrome::error(503, &format!("state database unavailable: {e:#}"))
        }
    }
}

/// One value of a column, as text (`None`: the column holds nothing).
fn cell(values: &ColumnValues, row: usize) -> Option<String> {
    match values {
        ColumnValues::Text(v) | ColumnValues::Decimal(v) => v.get(row).cloned().flatten(),
        ColumnValues::Time(v) => v
            .get(row)
            .copied()
            .flatten()
            .map(|t| t.format("%Y-%m-%d %H:%M").to_string()),
        ColumnValues::Id(v) => v.get(row).copied().flatten().map(|n| n.to_string()),
        ColumnValues::Count(v) => v.get(row).copied().flatten().map(|n| n.to_string()),
    }
}

/// A detail table: one row per stored row, in input order, every column
/// (the source sequence first, as the tables declare it).
fn table<T: TableRow>(out: &mut String, id: &str, title: &str, rows: &[T]) {
    let _ = write!(
        out,
        "<h2>{title}</h2><div class=\"wrap\"><table id=\"{id}\"><tr>"
    );
    for (name, _) in T::COLUMNS {
        let _ = write!(out, "<th>{}</th>", name.to_uppercase());
    }
    out.push_str("</tr>");
    let columns = T::columns(rows.iter());
    for row in 0..rows.len() {
        out.push_str("<tr>");
        for values in &columns {
            let _ = write!(
                out,
                "<td>{}</td>",
                escape(cell(values, row).as_deref().unwrap_or("–"))
            );
        }
        out.push_str("</tr>");
    }
    if rows.is_empty() {
        let _ = write!(
            out,
            "<tr><td colspan=\"{}\" class=\"none\">none</td></tr>",
            T::COLUMNS.len()
        );
    }
    out.push_str("</table></div>");
}

fn render(read: &Read) -> String {
    let flight = &read.flight;
    let state = &flight.state;
    let fields = &state.fields;
    let mut out = String::with_capacity(16 * 1024);
    let number = fields.flno.as_deref().unwrap_or("–");
    chrome::open(
        &mut out,
        &format!("{number} (FLID {})", state.flid),
        None,
        "",
    );
    let time = |t: Option<chrono::NaiveDateTime>| {
        t.map_or_else(
            || "–".to_owned(),
            |t| t.format("%Y-%m-%d %H:%M").to_string(),
        )
    };
    let _ = write!(
        out,
        "<h1>{} {} <small>FLID {}</small></h1><dl>\
         <dt>Operation day</dt><dd id=\"operation-day\">{}</dd>\
         <dt>State version</dt><dd id=\"state-version\">{}</dd>\
         <dt>Changed at (UTC)</dt><dd id=\"updated-at\">{}</dd>\
         <dt>Last message</dt><dd id=\"last-message\">{}</dd></dl>",
        escape(number),
        escape(direction(fields.mvin.as_deref())),
        state.flid,
        flight
            .operation_day
            .map_or_else(|| "not known yet".to_owned(), |d| d.to_string()),
        flight.state_version,
        flight.updated_at.format("%Y-%m-%d %H:%M:%S"),
        last_message(flight.last_message_id, read.last_message.as_ref()),
    );
    let _ = write!(
        out,
        "<h2>Times (station)</h2><dl id=\"times\">\
         <dt>Scheduled (SODT)</dt><dd id=\"sodt\">{}</dd>\
         <dt>Estimated (ESTT)</dt><dd id=\"estt\">{}</dd>\
         <dt>Actual (ACTT)</dt><dd id=\"actt\">{}</dd></dl>",
        time(fields.sodt),
        time(fields.estt),
        time(fields.actt),
    );
    table(&mut out, "gates", "Gates (GTDT)", &state.gates);
    table(
        &mut out,
        "counters",
        "Check-in counters (CKDT)",
        &state.counters,
    );
    table(&mut out, "carousels", "Carousels (CLDT)", &state.carousels);
    table(&mut out, "stands", "Stands (PSDT)", &state.stands);
    table(&mut out, "chutes", "Chutes (CHDT)", &state.chutes);
    table(&mut out, "delays", "Delays (DELY)", &state.delays);
    table(&mut out, "bridges", "Airbridges (ABTM)", &state.bridges);
    table(&mut out, "chocks", "Chocks (CHOT)", &state.chocks);
    table(&mut out, "route", "Route (ROUT)", &state.route);
    table(
        &mut out,
        "entire-route",
        "Entire route (ERUT)",
        &state.entire_route,
    );
    write_fields(&mut out, fields);
    let document = StateDocument::of(flight).json;
    let pretty = serde_json::from_str::<serde_json::Value>(&document)
        .and_then(|v| serde_json::to_string_pretty(&v))
        .unwrap_or(document);
    let _ = write!(
        out,
        "<h2>Document (as on the state topic)</h2><pre id=\"document\">{}</pre>",
        escape(&pretty)
    );
    chrome::close(&mut out);
    out
}

/// Every scalar the flight holds, in the table's column order.
fn write_fields(out: &mut String, fields: &FlightFields) {
    out.push_str("<h2>All fields</h2><div class=\"wrap\"><table id=\"fields\">");
    let columns = FlightFields::columns(std::iter::once(fields));
    let mut any = false;
    for ((name, _), values) in FlightFields::COLUMNS.iter().zip(&columns) {
        if let Some(value) = cell(values, 0) {
            any = true;
            let _ = write!(
                out,
                "<tr><th>{}</th><td id=\"field-{name}\">{}</td></tr>",
                name.to_uppercase(),
                escape(&value)
            );
        }
    }
    if !any {
        out.push_str("<tr><td class=\"none\">none</td></tr>");
    }
    out.push_str("</table></div>");
}

/// The last message: a link to its processing record, and to its
/// dead-letter page when it is DEAD.
fn last_message(id: i64, record: Option<&MessageRecord>) -> String {
    let mut text = format!("<a id=\"message-link\" href=\"/message/{id}\">{id}</a>");
    match record {
        Some(r) => {
            let _ = write!(text, " ({})", r.status.code());
            if r.status == ProcStatus::Dead {
                let _ = write!(
                    text,
                    " <a id=\"dead-link\" href=\"/dead/{id}\">dead letter</a>"
                );
            }
        }
        None => text.push_str(" (no processing record: cleaned up)"),
    }
    text
}
