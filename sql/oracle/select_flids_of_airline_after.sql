-- name: select_flids_of_airline_after
-- `flightstate republish --airline`: one page of the FLIDs of one airline
-- (FLIGHT_SCHD.ALCD, as AODB sends it), ascending, after a given one (keyset
-- pagination over the primary key), like select_flids_of_day_after. No index
-- serves ALCD: a page walks FLIGHT_SCHD_PK from the last FLID on until it has
-- found its rows, so that the whole walk reads the table once. Read before
-- the batch's PIPELINE_LOCK is taken, so the pump never waits for it. 11g has
-- no FETCH FIRST, so ROWNUM limits the ordered inline view.
-- binds: :alcd VARCHAR2  airline (ALCD, never empty: the command refuses an
--        empty one), :after_flid NUMBER  the last FLID of the previous page
--        (below every FLID for the first), :page_size NUMBER  page size
-- returns: FLID, at most :page_size rows, ascending
-- locks: none
SELECT FLID
FROM (
    SELECT FLID
    FROM FLIGHT_SCHD
    WHERE ALCD = :alcd
      AND FLID > :after_flid
    ORDER BY FLID
)
WHERE ROWNUM <= :page_size
