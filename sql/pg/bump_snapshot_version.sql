-- name: bump_snapshot_version
-- The CAS version bump of a day's snapshot ledger: succeeds only if the
-- version is still the one read at the start of the transaction. Zero rows
-- means another snapshot of the day committed in between: a conflict, rolled
-- back and retried.
-- binds: $1 date  operation_day, $2 bigint  expected version,
--        $3 bigint  last_message_id, $4 timestamp  updated_at (UTC)
-- returns: nothing (row count 1 or 0)
-- locks: the SCHD_GEN row of the day
UPDATE schd_gen
SET version = version + 1,
    last_message_id = $3,
    updated_at = $4
WHERE operation_day = $1
  AND version = $2
