-- name: select_flids_after
-- One page of the stored FLIDs, ascending, after a given one (keyset
-- pagination): the read API walks all flights a page at a time, in the
-- read-only snapshot of set_read_only_snapshot, so memory does not grow with
-- the number of flights. Walks the primary key; 11g has no FETCH FIRST, so
-- ROWNUM limits the ordered inline view.
-- binds: :after_flid NUMBER  the last FLID of the previous page (below every
--        FLID for the first), :page_size NUMBER  page size
-- returns: FLID, at most :page_size rows, ascending
-- locks: none
SELECT FLID
FROM (
    SELECT FLID
    FROM FLIGHT_SCHD
    WHERE FLID > :after_flid
    ORDER BY FLID
)
WHERE ROWNUM <= :page_size
