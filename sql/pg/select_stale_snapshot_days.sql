-- name: select_stale_snapshot_days
-- The operation days whose ledger the lifecycle clean-up may remove: days
-- before the retention cutoff that no stored flight belongs to any more. A
-- set-difference delete of such a day can only delete flights whose
-- OPERATION_DAY is the day, and there are none: forgetting the day's old list
-- can never keep a later snapshot of it from deleting what it must
-- (docs/snapshot-ledger.md, "Removing old ledgers"). Days after a cursor,
-- ascending, at most a batch.
-- binds: $1 date  cutoff (days before it), $2 date  cursor or NULL (only days
--        after it), $3 bigint  how many
-- returns: operation_day
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT g.operation_day
FROM schd_gen g
WHERE g.operation_day < $1
  AND ($2::date IS NULL OR g.operation_day > $2)
  AND NOT EXISTS (
      SELECT 1 FROM flight_schd f WHERE f.operation_day = g.operation_day
  )
ORDER BY g.operation_day
LIMIT $3
