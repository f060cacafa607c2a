//! [`TailOps`] on PostgreSQL.

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{ProcStatus, REQUEUED, StoreError, TailOps};

#[derive(QueryableByName)]
struct LastRow {
    #[diesel(sql_type = Nullable<BigInt>)]
    last_message_id: Option<i64>,
}

impl TailOps for PgTx<'_> {
    fn select_last_final_message(&mut self) -> Result<Option<i64>, StoreError> {
        let row: LastRow = sql_query(sql::SELECT_LAST_FINAL_MESSAGE)
            .bind::<Text, _>(ProcStatus::Succeeded.code())
            .bind::<Text, _>(ProcStatus::Dead.code())
            .bind::<Text, _>(ProcStatus::Failed.code())
            .bind::<Text, _>(REQUEUED)
            .prepared()
            .get_result(self.conn())
            .map_err(|e| query("select_last_final_message", e))?;
        Ok(row.last_message_id)
    }
}

#[cfg(test)]
mod tests {
    use super::super::store::with_timeouts;
    use crate::store::Timeouts;

    /// A multi-host URL (libpq tries each host in turn, and with
    /// `target_session_attrs=read-write` takes the one that accepts
    /// writes) keeps its host list and its own parameters through the
    /// rewrite that adds the timeouts.
    #[test]
    fn a_multi_host_url_keeps_its_hosts_and_session_attrs() {
        let url =
            "postgres://flightstate@db1:5432,db2:5433/flightstate?target_session_attrs=read-write";
        let rewritten = with_timeouts(url, &Timeouts::default());
        assert!(
            rewritten.starts_with("postgres://flightstate@db1:5432,db2:5433/flightstate?"),
            "{rewritten}"
        );
        assert!(
            rewritten.contains("&target_session_attrs=read-write&")
                || rewritten.contains("?target_session_attrs=read-write&"),
            "{rewritten}"
        );
    }
}
