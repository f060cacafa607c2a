-- name: select_snapshot_list
-- Reads the flight list of a day's current snapshot.
-- binds: :operation_day date
-- returns: flid, ascending
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT FLID
FROM SCHD_GEN_FLID
WHERE OPERATION_DAY = :operation_day
ORDER BY FLID
