-- name: select_flids_of_day_after
-- One page of the FLIDs of one operation day, ascending, after a given one
-- (keyset pagination), like select_flids_after. Uses FLIGHT_SCHD_OPDAY_IX.
-- binds: :operation_day DATE  operation day, :after_flid NUMBER  the last FLID
--        of the previous page (below every FLID for the first),
--        :page_size NUMBER  page size
-- returns: FLID, at most :page_size rows, ascending
-- locks: none
SELECT FLID
FROM (
    SELECT FLID
    FROM FLIGHT_SCHD
    WHERE OPERATION_DAY = :operation_day
      AND FLID > :after_flid
    ORDER BY FLID
)
WHERE ROWNUM <= :page_size
