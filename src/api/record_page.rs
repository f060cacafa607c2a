//! `GET /message/{id}` and `GET /dead/{id}`: what `PROC_STATE` records of
//! one message (its processing record), and the same record as a dead
//! letter, with the commands an operator answers it with. The flight page
//! links here from its last message. Read-only, one statement.

use std::fmt::Write as _;

use super::chrome;
use super::html::escape;
use super::reply::Reply;
use crate::store::{DeadOps, MessageRecord, ProcStatus, ReadOps, Store};

/// Which page of the record.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum View {
    /// The processing record, whatever the status.
    Record,
    /// The dead letter: only for a DEAD message.
    DeadLetter,
}

/// The answer to `GET /message/{id}` or `GET /dead/{id}`.
pub(super) fn get<S: Store>(store: &S, id: &str, query: &str, view: View) -> Reply {
    if !query.is_empty() {
        return chrome::error(400, "this page takes no parameters");
    }
    let id = match id.parse::<i64>() {
        Ok(id) if id > 0 => id,
        _ => {
            return chrome::error(
                400,
                &format!("{id:?} is not a message id (a positive integer)"),
            );
        }
    };
    let record = store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        tx.select_message_record(id)
    });
    match record {
        Ok(Some(r)) if view == View::DeadLetter && r.status != ProcStatus::Dead => chrome::error(
            404,
            &format!(
                "message {id} is not a dead letter (it is {})",
                r.status.code()
            ),
        ),
        Ok(Some(r)) => chrome::html(200, render(&r, view)),
        Ok(None) => chrome::error(404, &format!("no processing record of message {id}")),
        Err(e) => chrome::error(503, &format!("state database unavailable: {e:#}")),
    }
}

fn render(r: &MessageRecord, view: View) -> String {
    let mut out = String::with_capacity(4096);
    let title = match view {
        View::Record => format!("Message {}", r.message_id),
        View::DeadLetter => format!("Dead letter {}", r.message_id),
    };
    chrome::open(&mut out, &title, None, "");
    let opt = |v: Option<&str>| escape(v.unwrap_or("–"));
    let _ = write!(
        out,
        "<h1>{title}</h1><dl id=\"record\"><dt>Status</dt><dd id=\"status\">{}</dd>\
         <dt>Kind</dt><dd>{} {}</dd><dt>Error kind</dt><dd>{}</dd>\
         <dt>Reason</dt><dd id=\"reason\">{}</dd><dt>Attempts</dt><dd>{}</dd>\
         <dt>First seen (UTC)</dt><dd>{}</dd><dt>Outcome recorded (UTC)</dt><dd>{}</dd>\
         <dt>Requeued</dt><dd>{} times{}</dd></dl>",
        r.status.code(),
        opt(r.msg_type.as_deref()),
        opt(r.msg_subtype.as_deref()),
        opt(r.error_kind.as_deref()),
        opt(r.error_text.as_deref()),
        r.attempts,
        r.first_seen_at.format("%Y-%m-%d %H:%M:%S"),
        r.updated_at.format("%Y-%m-%d %H:%M:%S"),
        r.requeue_count,
        match (&r.requeued_by, r.requeued_at) {
            (Some(by), Some(at)) => format!(", last by {} at {at}", escape(by)),
            _ => String::new(),
        },
    );
    if r.status == ProcStatus::Dead {
        let _ = write!(
            out,
            "<p id=\"dead-letter\" class=\"bad\">A dead letter: the pipeline gave it up. \
             <code>flightstate dead show {id}</code> prints it; <code>flightstate dead requeue \
             {id}</code> has it applied again.</p>",
            id = r.message_id
        );
        if view == View::Record {
            let _ = write!(
                out,
                "<p><a href=\"/dead/{}\">Its dead-letter page</a></p>",
                r.message_id
            );
        }
    }
    chrome::close(&mut out);
    out
}
