-- name: select_migration_table
-- Oracle only (PostgreSQL's runner is diesel's): whether the schema holds the
-- migration history table yet, i.e. whether V000 must run first.
-- binds: :table_name varchar2  FLIGHTSTATE_MIGRATION
-- returns: n (0 or 1)
-- locks: none
SELECT COUNT(*) AS N
FROM USER_TABLES
WHERE TABLE_NAME = :table_name
