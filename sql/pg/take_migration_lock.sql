-- name: take_migration_lock
-- Waits for and takes the session advisory lock that serialises
-- `flightstate migrate` runs against one database (diesel_migrations does
-- not lock by itself).
-- binds: $1 bigint  the migration lock key
-- returns: one row, ignored
-- locks: the session advisory lock $1, until release_migration_lock or disconnect
SELECT pg_advisory_lock($1)
