-- name: select_applied_migrations
-- The migrations applied to this database, to compare with the binary's
-- own: a process refuses a schema behind or ahead of it.
-- binds: none
-- returns: version (text), ascending
-- locks: none
SELECT version
FROM __diesel_schema_migrations
ORDER BY version
