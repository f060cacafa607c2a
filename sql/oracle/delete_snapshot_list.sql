-- name: delete_snapshot_list
-- Removes a day's snapshot list: the first half of replacing it.
-- binds: :operation_day date
-- returns: nothing
-- locks: the deleted rows
DELETE FROM SCHD_GEN_FLID
WHERE OPERATION_DAY = :operation_day
