-- name: select_snapshot_ledger
-- Reads the snapshot ledger of one operation day.
-- binds: :operation_day date
-- returns: version, last_message_id (no row: no snapshot of that day yet)
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT VERSION, LAST_MESSAGE_ID
FROM SCHD_GEN
WHERE OPERATION_DAY = :operation_day
