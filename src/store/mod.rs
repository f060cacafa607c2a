//! Placeholder, replaced by the PostgreSQL store.
