-- name: bump_snapshot_version
-- The CAS version bump of a day's snapshot ledger: succeeds only if the
-- version is still the one read at the start of the transaction. Zero rows
-- means another snapshot of the day committed in between: a conflict, rolled
-- back and retried.
-- binds: :operation_day date, :expected number(19)  expected version,
--        :last_message_id number(19), :updated_at date (UTC)
-- returns: nothing (row count 1 or 0)
-- locks: the SCHD_GEN row of the day
UPDATE SCHD_GEN
SET VERSION = VERSION + 1,
    LAST_MESSAGE_ID = :last_message_id,
    UPDATED_AT = :updated_at
WHERE OPERATION_DAY = :operation_day
  AND VERSION = :expected
