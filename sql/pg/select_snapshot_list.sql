-- name: select_snapshot_list
-- Reads the flight list of a day's current snapshot.
-- binds: $1 date  operation_day
-- returns: flid, ascending
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT flid
FROM schd_gen_flid
WHERE operation_day = $1
ORDER BY flid
