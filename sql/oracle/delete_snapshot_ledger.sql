-- name: delete_snapshot_ledger
-- Removes one day's snapshot ledger (lifecycle clean-up), guarded as
-- select_stale_snapshot_days chose it: before the cutoff and no stored flight
-- of the day. The caller removes the day's list (delete_snapshot_list) in the
-- same transaction when a row was deleted.
-- binds: :operation_day date, :cutoff date
-- returns: nothing (the row count: 1 = removed)
-- locks: the deleted SCHD_GEN row
DELETE FROM SCHD_GEN g
WHERE g.OPERATION_DAY = :operation_day
  AND g.OPERATION_DAY < :cutoff
  AND NOT EXISTS (SELECT 1 FROM FLIGHT_SCHD f WHERE f.OPERATION_DAY = :operation_day)
