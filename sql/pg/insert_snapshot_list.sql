-- name: insert_snapshot_list
-- Writes a day's new snapshot list in one statement.
-- binds: $1 date  operation_day, $2 bigint[]  flids
-- returns: nothing
-- locks: the inserted rows
INSERT INTO schd_gen_flid (operation_day, flid)
SELECT $1, flid
FROM UNNEST($2::bigint[]) AS list (flid)
