//! Handwritten statements as server-side prepared statements: parsed and
//! planned once per connection, then only bound and executed.
//!
//! diesel treats `sql_query` text as possibly different every time and never
//! caches it, so PostgreSQL would parse and plan every statement on every
//! execution — for the pump's small transactions, most of the server's
//! work. Our statements are constants from `sql/pg/` with a fixed list of
//! bind types, so they are safe to cache: [`Prepared`] tells diesel so, and
//! diesel's statement cache keys them by their text and bind types.

use diesel::QueryResult;
use diesel::RunQueryDsl;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};

/// A handwritten statement that diesel prepares once per connection.
#[derive(Clone, Debug)]
pub(super) struct Prepared<Q>(Q);

/// `.prepared()` on a statement built from a `sql/pg/` constant.
pub(super) trait Prepare: Sized {
    /// This statement, prepared once per connection and reused.
    fn prepared(self) -> Prepared<Self> {
        Prepared(self)
    }
}

impl<Q: QueryFragment<Pg>> Prepare for Q {}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for Prepared<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    /// The text is a constant and the bind types are fixed by the code that
    /// binds them: the same statement every time.
    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

/// No static id: diesel's cache keys the statement by its text and bind
/// types.
impl<Q> QueryId for Prepared<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for Prepared<Q> {
    type SqlType = Q::SqlType;
}

impl<Q, Conn> RunQueryDsl<Conn> for Prepared<Q> {}
