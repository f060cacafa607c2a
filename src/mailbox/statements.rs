//! Every mailbox statement, compiled in from `sql/mailbox/`. A constant's
//! name is its file's name; the file documents binds, result and locks.

macro_rules! sql {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/sql/mailbox/",
            $name,
            ".sql"
        ))
    };
}

/// Every statement by file name, for `flightstate sql` and the snapshot
/// tests. (`aodb_mailbox.sql` is AODB's DDL for tests, not a statement.)
pub(crate) const ALL: &[(&str, &str)] = &[
    ("insert_message", INSERT_MESSAGE),
    ("insert_request_message", INSERT_REQUEST_MESSAGE),
    ("requeue_message", REQUEUE_MESSAGE),
    ("select_backlog", SELECT_BACKLOG),
    ("select_catch_up_messages", SELECT_CATCH_UP_MESSAGES),
    ("select_known_statuses", SELECT_KNOWN_STATUSES),
    ("select_last_message_id", SELECT_LAST_MESSAGE_ID),
    ("select_mailbox_columns", SELECT_MAILBOX_COLUMNS),
    ("select_message", SELECT_MESSAGE),
    ("select_message_state", SELECT_MESSAGE_STATE),
    ("select_pending_messages", SELECT_PENDING_MESSAGES),
    ("select_request_message", SELECT_REQUEST_MESSAGE),
    ("select_written_back", SELECT_WRITTEN_BACK),
    ("set_idle_transaction_limit", SET_IDLE_TRANSACTION_LIMIT),
    ("write_back_message", WRITE_BACK_MESSAGE),
];

pub(crate) const INSERT_MESSAGE: &str = sql!("insert_message");
pub(crate) const INSERT_REQUEST_MESSAGE: &str = sql!("insert_request_message");
pub(crate) const REQUEUE_MESSAGE: &str = sql!("requeue_message");
pub(crate) const SELECT_BACKLOG: &str = sql!("select_backlog");
pub(crate) const SELECT_KNOWN_STATUSES: &str = sql!("select_known_statuses");
pub(crate) const SELECT_LAST_MESSAGE_ID: &str = sql!("select_last_message_id");
pub(crate) const SELECT_MAILBOX_COLUMNS: &str = sql!("select_mailbox_columns");
pub(crate) const SELECT_MESSAGE: &str = sql!("select_message");
pub(crate) const SELECT_MESSAGE_STATE: &str = sql!("select_message_state");
pub(crate) const SELECT_PENDING_MESSAGES: &str = sql!("select_pending_messages");
pub(crate) const SELECT_REQUEST_MESSAGE: &str = sql!("select_request_message");
pub(crate) const SET_IDLE_TRANSACTION_LIMIT: &str = sql!("set_idle_transaction_limit");
pub(crate) const WRITE_BACK_MESSAGE: &str = sql!("write_back_message");
pub(crate) const SELECT_WRITTEN_BACK: &str = sql!("select_written_back");
pub(crate) const SELECT_CATCH_UP_MESSAGES: &str = sql!("select_catch_up_messages");

/// AODB's own DDL of the mailbox tables, for the mailboxes of demos and
/// tests (`flightstate enqueue --create-tables`); never run in production.
pub(crate) const AODB_MAILBOX_DDL: &str = sql!("aodb_mailbox");
