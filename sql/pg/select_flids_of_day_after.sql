-- name: select_flids_of_day_after
-- One page of the FLIDs of one operation day, ascending, after a given one
-- (keyset pagination), like select_flids_after. Uses FLIGHT_SCHD_OPDAY_IX.
-- binds: $1 date  operation day, $2 bigint  the last FLID of the previous
--        page (below every FLID for the first), $3 bigint  page size
-- returns: flid, at most $3 rows, ascending
-- locks: none
SELECT flid
FROM flight_schd
WHERE operation_day = $1
  AND flid > $2
ORDER BY flid
LIMIT $3
