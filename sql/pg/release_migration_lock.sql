-- name: release_migration_lock
-- Releases the migration advisory lock taken by take_migration_lock.
-- binds: $1 bigint  the migration lock key
-- returns: one row, ignored
-- locks: releases the session advisory lock $1
SELECT pg_advisory_unlock($1)
