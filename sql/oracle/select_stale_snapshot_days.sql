-- name: select_stale_snapshot_days
-- The operation days whose ledger the lifecycle clean-up may remove: days
-- before the retention cutoff that no stored flight belongs to any more. A
-- set-difference delete of such a day can only delete flights whose
-- OPERATION_DAY is the day, and there are none: forgetting the day's old list
-- can never keep a later snapshot of it from deleting what it must
-- (docs/snapshot-ledger.md, "Removing old ledgers"). Days after a cursor,
-- ascending, at most a batch; ROWNUM limits the ordered view.
-- binds: :cutoff date  cutoff (days before it), :after_day date  cursor or
--        NULL (only days after it), :max_rows number  how many
-- returns: operation_day
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT operation_day
FROM (
    SELECT g.OPERATION_DAY AS operation_day
    FROM SCHD_GEN g
    WHERE g.OPERATION_DAY < :cutoff
      AND (:after_day IS NULL OR g.OPERATION_DAY > :after_day)
      AND NOT EXISTS (
          SELECT 1 FROM FLIGHT_SCHD f WHERE f.OPERATION_DAY = g.OPERATION_DAY
      )
    ORDER BY g.OPERATION_DAY
)
WHERE ROWNUM <= :max_rows
