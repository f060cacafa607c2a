-- name: insert_snapshot_ledger
-- Opens the ledger of a day's first snapshot at version 1. Zero rows means
-- the day's ledger exists already: a conflict, rolled back and retried. (A
-- transaction inserting the same day concurrently makes this one wait, then
-- fail with ORA-00001, which the repository reports as a conflict too.)
-- binds: :operation_day date, :last_message_id number(19), :updated_at date (UTC)
-- returns: nothing (row count 1 or 0)
-- locks: the new SCHD_GEN row
INSERT INTO SCHD_GEN (OPERATION_DAY, VERSION, LAST_MESSAGE_ID, UPDATED_AT)
SELECT :operation_day, 1, :last_message_id, :updated_at
FROM DUAL
WHERE NOT EXISTS (SELECT 1 FROM SCHD_GEN WHERE OPERATION_DAY = :operation_day)
