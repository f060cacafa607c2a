-- name: select_migration_table
-- Whether the database holds diesel's migration history yet (a database
-- never migrated has none), before select_applied_migrations reads it.
-- binds: $1 text  the history table's name, __diesel_schema_migrations
-- returns: present (boolean)
-- locks: none
SELECT to_regclass($1) IS NOT NULL AS present
