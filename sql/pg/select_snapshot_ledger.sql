-- name: select_snapshot_ledger
-- Reads the snapshot ledger of one operation day.
-- binds: $1 date  operation_day
-- returns: version, last_message_id (no row: no snapshot of that day yet)
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT version, last_message_id
FROM schd_gen
WHERE operation_day = $1
