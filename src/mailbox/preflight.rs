//! What the mailbox is, read before the first message (`flightstate
//! doctor`): AODB owns `CMINMSGS` and `COUTMSGS`, so a site's tables may
//! lack a column flightstate reads or writes, or carry statuses other than
//! the configured ones; either would otherwise show first as a failure
//! inside the pump.

use mysql::prelude::Queryable;

use super::{Mailbox, MailboxError, statements};

/// The kind of value a mailbox column must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holds {
    Integer,
    Text,
    Characters,
    DateTime,
}

impl Holds {
    fn accepts(self, data_type: &str) -> bool {
        let types: &[&str] = match self {
            Holds::Integer => &[
                "tinyint",
                "smallint",
                "mediumint",
                "int",
                "bigint",
                "decimal",
            ],
            Holds::Text => &["text", "mediumtext", "longtext"],
            Holds::Characters => &["varchar", "char"],
            Holds::DateTime => &["datetime", "timestamp"],
        };
        types.contains(&data_type)
    }

    fn describe(self) -> &'static str {
        match self {
            Holds::Integer => "an integer type",
            Holds::Text => "TEXT, MEDIUMTEXT or LONGTEXT",
            Holds::Characters => "VARCHAR or CHAR",
            Holds::DateTime => "DATETIME or TIMESTAMP",
        }
    }
}

/// Every column flightstate reads or writes (`sql/mailbox/`), by table.
const COLUMNS: &[(&str, &str, Holds)] = &[
    ("cminmsgs", "CMINMSGS_ID", Holds::Integer),
    ("cminmsgs", "CMINMSGS_CLOB_MSG", Holds::Text),
    ("cminmsgs", "CMINMSGS_DATE_RECEIVED", Holds::DateTime),
    ("cminmsgs", "CMINMSGS_DATE_PROCESSED", Holds::DateTime),
    ("cminmsgs", "CMINMSGS_SUBSYSTEM_NAME", Holds::Characters),
    ("cminmsgs", "CMINMSGS_SUBSYSTEM_SEQUENCE", Holds::Integer),
    ("cminmsgs", "CMINMSGS_SUBSYSTEM_DATE_SENT", Holds::DateTime),
    ("cminmsgs", "CMINMSGS_SUBSYSTEM_SUBTYPE", Holds::Characters),
    ("cminmsgs", "CMINMSGS_SUBSYSTEM_TYPE", Holds::Characters),
    ("cminmsgs", "CMINMSGS_STATUS", Holds::Characters),
    ("coutmsgs", "COUTMSGS_ID", Holds::Integer),
    ("coutmsgs", "COUTMSGS_CLOB_MSG", Holds::Text),
    ("coutmsgs", "COUTMSGS_DATE_INSERTED", Holds::DateTime),
    ("coutmsgs", "COUTMSGS_DATE_SENT", Holds::DateTime),
    ("coutmsgs", "ROUTINGID", Holds::Characters),
    ("coutmsgs", "COUTMSGS_TRUEFALS_GROUP", Holds::Integer),
    ("coutmsgs", "COUTMSGS_NO_MESSAGES", Holds::Integer),
    ("coutmsgs", "COUTMSGS_GROUP_ORDER", Holds::Integer),
    ("coutmsgs", "COUTMSGS_GROUP_ID", Holds::Integer),
    ("coutmsgs", "COUTMSGS_FINAL_GROUP_IND", Holds::Integer),
    ("coutmsgs", "COUTMSGS_ACK_REQD", Holds::Integer),
    ("coutmsgs", "COUTMSGS_ACK_RESEND_TIMES", Holds::Integer),
    ("coutmsgs", "COUTMSGS_ACK_DATE_RECV", Holds::DateTime),
    ("coutmsgs", "COUTMSGS_ENCRYPT", Holds::Integer),
    ("coutmsgs", "COUTMSGS_ERROR", Holds::Integer),
];

/// What the mailbox told about its tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailboxFacts {
    /// `(table, column, data type)` as the server declares them.
    pub columns: Vec<(String, String, String)>,
    /// Whether `CMINMSGS` holds any row.
    pub any_row: bool,
    /// Whether any row carries the pending, succeeded or dead status.
    pub known_status: bool,
}

impl MailboxFacts {
    /// Each column flightstate needs that is missing or of another kind,
    /// as a sentence naming the table, the column and what it must be.
    #[must_use]
    pub fn column_problems(&self) -> Vec<String> {
        COLUMNS
            .iter()
            .filter_map(|(table, column, holds)| {
                let found = self
                    .columns
                    .iter()
                    .find(|(t, c, _)| t == table && c == column);
                match found {
                    None => Some(format!(
                        "{} has no column {column} ({})",
                        table.to_ascii_uppercase(),
                        holds.describe()
                    )),
                    Some((_, _, data_type)) if !holds.accepts(data_type) => Some(format!(
                        "{}.{column} is {}, not {}",
                        table.to_ascii_uppercase(),
                        data_type.to_ascii_uppercase(),
                        holds.describe()
                    )),
                    Some(_) => None,
                }
            })
            .collect()
    }
}

impl Mailbox {
    /// Reads the mailbox tables' columns and whether `CMINMSGS` holds rows
    /// with the configured statuses.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the server cannot be reached or a statement
    /// fails.
    pub fn inspect(&self) -> Result<MailboxFacts, MailboxError> {
        let mut conn = self.conn()?;
        let columns: Vec<(String, String, String)> = conn
            .exec(statements::SELECT_MAILBOX_COLUMNS, ("cminmsgs", "coutmsgs"))
            .map_err(|e| MailboxError::new("select_mailbox_columns", e))?;
        let has_inbound = columns.iter().any(|(t, _, _)| t == "cminmsgs");
        let (any_row, known_status) = if has_inbound {
            let s = &self.settings;
            conn.exec_first::<(bool, bool), _, _>(
                statements::SELECT_KNOWN_STATUSES,
                (&s.pending_status, &s.succeeded_status, &s.dead_status),
            )
            .map_err(|e| MailboxError::new("select_known_statuses", e))?
            .unwrap_or((false, false))
        } else {
            (false, false)
        };
        Ok(MailboxFacts {
            columns,
            any_row,
            known_status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aodb_columns() -> Vec<(String, String, String)> {
        COLUMNS
            .iter()
            .map(|(table, column, holds)| {
                let data_type = match holds {
                    Holds::Integer => "bigint",
                    Holds::Text => "mediumtext",
                    Holds::Characters => "varchar",
                    Holds::DateTime => "datetime",
                };
                (
                    (*table).to_owned(),
                    (*column).to_owned(),
                    data_type.to_owned(),
                )
            })
            .collect()
    }

    fn facts(columns: Vec<(String, String, String)>) -> MailboxFacts {
        MailboxFacts {
            columns,
            any_row: false,
            known_status: false,
        }
    }

    #[test]
    fn aodb_tables_have_no_problem() {
        assert!(facts(aodb_columns()).column_problems().is_empty());
    }

    #[test]
    fn a_missing_column_and_a_wrong_type_are_named() {
        let mut columns = aodb_columns();
        columns.retain(|(_, c, _)| c != "CMINMSGS_STATUS");
        if let Some(msg) = columns
            .iter_mut()
            .find(|(_, c, _)| c == "COUTMSGS_CLOB_MSG")
        {
            msg.2 = "int".to_owned();
        }
        assert_eq!(
            facts(columns).column_problems(),
            vec![
                "CMINMSGS has no column CMINMSGS_STATUS (VARCHAR or CHAR)".to_owned(),
                "COUTMSGS.COUTMSGS_CLOB_MSG is INT, not TEXT, MEDIUMTEXT or LONGTEXT".to_owned(),
            ]
        );
    }
}
