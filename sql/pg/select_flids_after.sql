-- name: select_flids_after
-- One page of the stored FLIDs, ascending, after a given one (keyset
-- pagination): the read API walks all flights a page at a time, in the
-- read-only snapshot of set_read_only_snapshot, so memory does not grow with
-- the number of flights. Walks the primary key.
-- binds: $1 bigint  the last FLID of the previous page (below every FLID for
--        the first), $2 bigint  page size
-- returns: flid, at most $2 rows, ascending
-- locks: none
SELECT flid
FROM flight_schd
WHERE flid > $1
ORDER BY flid
LIMIT $2
