-- name: delete_snapshot_ledger
-- Removes one day's snapshot ledger (lifecycle clean-up), guarded as
-- select_stale_snapshot_days chose it: before the cutoff and no stored flight
-- of the day. The caller removes the day's list (delete_snapshot_list) in the
-- same transaction when a row was deleted.
-- binds: $1 date  operation_day, $2 date  cutoff
-- returns: nothing (the row count: 1 = removed)
-- locks: the deleted SCHD_GEN row
DELETE FROM schd_gen g
WHERE g.operation_day = $1
  AND g.operation_day < $2
  AND NOT EXISTS (SELECT 1 FROM flight_schd f WHERE f.operation_day = $1)
