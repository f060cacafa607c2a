-- name: select_flids_of_airline_after
-- `flightstate republish --airline`: one page of the FLIDs of one airline
-- (FLIGHT_SCHD.ALCD, as AODB sends it), ascending, after a given one (keyset
-- pagination over the primary key), like select_flids_of_day_after. No index
-- serves ALCD: a page walks FLIGHT_SCHD_PK from the last FLID on until it has
-- found its rows, so that the whole walk reads the table once. Read before
-- the batch's PIPELINE_LOCK is taken, so the pump never waits for it.
-- binds: $1 varchar  airline (ALCD), $2 bigint  the last FLID of the previous
--        page (below every FLID for the first), $3 bigint  page size
-- returns: flid, at most $3 rows, ascending
-- locks: none
SELECT flid
FROM flight_schd
WHERE alcd = $1
  AND flid > $2
ORDER BY flid
LIMIT $3
