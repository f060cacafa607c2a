-- name: delete_snapshot_list
-- Removes a day's snapshot list: the first half of replacing it.
-- binds: $1 date  operation_day
-- returns: nothing
-- locks: the deleted rows
DELETE FROM schd_gen_flid
WHERE operation_day = $1
