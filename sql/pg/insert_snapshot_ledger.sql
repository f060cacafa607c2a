-- name: insert_snapshot_ledger
-- Opens the ledger of a day's first snapshot at version 1. Zero rows means
-- another transaction opened it first: a conflict, rolled back and retried.
-- binds: $1 date  operation_day, $2 bigint  last_message_id, $3 timestamp  updated_at (UTC)
-- returns: nothing (row count 1 or 0)
-- locks: the new SCHD_GEN row
INSERT INTO schd_gen (operation_day, version, last_message_id, updated_at)
VALUES ($1, 1, $2, $3)
ON CONFLICT (operation_day) DO NOTHING
