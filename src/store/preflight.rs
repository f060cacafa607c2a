//! What a state database is, read before any work starts (`flightstate
//! doctor`, and the schema check of `run`, `pump`, `dispatch` and `serve`).
//!
//! Whether the schema is the one this binary was built for: the migrations the binary carries against those the database has
//! applied. A pump writing into a schema one migration behind fails inside
//! a message's transaction (a missing column), and one ahead may write rows
//! a newer release reads differently; both are refused at start instead.

/// The oldest PostgreSQL server the statements work on: `gen_random_uuid()`
/// without an extension (`sql/pg/grant_effect_calls.sql`) is 13; the
/// `tcp_user_timeout` setting of every connection is 12.
pub const PG_MIN_VERSION_NUM: i32 = 130_000;

/// The oldest Oracle server the dialect is written for.
pub const ORACLE_MIN_VERSION: (i32, i32) = (11, 2);

/// What the state database told about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseFacts {
    /// The server's product and version, as a person reads it.
    pub server: String,
    /// Why that server is too old, if it is.
    pub server_too_old: Option<String>,
    /// The client library and its version (Oracle), if one is loaded.
    pub client: Option<String>,
    /// The database character set, where the dialect depends on it
    /// (Oracle: `AL32UTF8`), and why it does not fit, if it does not.
    pub character_set: Option<(String, Option<String>)>,
    /// The migrations applied against this binary's.
    pub schema: SchemaLevel,
    /// Tables the connected user cannot read and write as the pipeline
    /// does (or that do not exist), by name; `None` where the dialect does
    /// not check (Oracle: the pipeline connects as the schema owner).
    pub missing_privileges: Option<Vec<String>>,
}

/// The migrations this binary carries and those the database has applied,
/// each by its version (PostgreSQL: diesel's `2026-11-29-000001`-style
/// version; Oracle: `V001`), ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaLevel {
    /// What this binary carries.
    pub binary: Vec<String>,
    /// What the state database has applied.
    pub database: Vec<String>,
}

/// The state database's schema is not this binary's.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SchemaMismatch {
    /// Migrations this binary carries are not applied yet.
    #[error(
        "the state database's schema is behind this binary: it is at {database}, this binary is \
         at {binary} ({missing} migration(s) to apply); run `flightstate migrate`"
    )]
    Behind {
        /// The database's latest applied migration (`none` on an empty one).
        database: String,
        /// This binary's latest migration.
        binary: String,
        /// How many of this binary's migrations are not applied.
        missing: usize,
    },
    /// The database has applied migrations this binary does not know: a
    /// newer release migrated it.
    #[error(
        "the state database's schema is ahead of this binary: it is at {database}, this binary \
         is at {binary}; run the flightstate release that migrated it (or a newer one) — \
         `migrate` never goes back"
    )]
    Ahead {
        /// The database's latest applied migration.
        database: String,
        /// This binary's latest migration.
        binary: String,
    },
}

impl SchemaLevel {
    /// `Ok` when the database has applied exactly this binary's migrations.
    ///
    /// # Errors
    ///
    /// [`SchemaMismatch::Ahead`] when the database holds a migration this
    /// binary does not carry (whatever else is missing), else
    /// [`SchemaMismatch::Behind`] when one of this binary's is not applied.
    pub fn check(&self) -> Result<(), SchemaMismatch> {
        let latest = |versions: &[String]| {
            versions
                .iter()
                .max()
                .cloned()
                .unwrap_or_else(|| "none".to_owned())
        };
        if self.database.iter().any(|v| !self.binary.contains(v)) {
            return Err(SchemaMismatch::Ahead {
                database: latest(&self.database),
                binary: latest(&self.binary),
            });
        }
        let missing = self
            .binary
            .iter()
            .filter(|v| !self.database.contains(v))
            .count();
        if missing > 0 {
            return Err(SchemaMismatch::Behind {
                database: latest(&self.database),
                binary: latest(&self.binary),
                missing,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(binary: &[&str], database: &[&str]) -> SchemaLevel {
        SchemaLevel {
            binary: binary.iter().map(|v| (*v).to_owned()).collect(),
            database: database.iter().map(|v| (*v).to_owned()).collect(),
        }
    }

    #[test]
    fn the_same_migrations_are_the_same_schema() {
        assert_eq!(level(&["V001", "V002"], &["V001", "V002"]).check(), Ok(()));
    }

    #[test]
    fn a_database_one_migration_behind_names_both_levels() {
        let err = level(&["V001", "V002"], &["V001"])
            .check()
            .expect_err("behind");
        assert_eq!(
            err,
            SchemaMismatch::Behind {
                database: "V001".to_owned(),
                binary: "V002".to_owned(),
                missing: 1
            }
        );
        assert!(err.to_string().contains("flightstate migrate"), "{err}");
    }

    #[test]
    fn an_empty_database_is_behind_from_none() {
        let err = level(&["V001"], &[]).check().expect_err("behind");
        assert!(err.to_string().contains("it is at none"), "{err}");
    }

    #[test]
    fn a_migration_the_binary_does_not_know_is_ahead() {
        let err = level(&["V001"], &["V001", "V002"])
            .check()
            .expect_err("ahead");
        assert_eq!(
            err,
            SchemaMismatch::Ahead {
                database: "V002".to_owned(),
                binary: "V001".to_owned()
            }
        );
    }
}
