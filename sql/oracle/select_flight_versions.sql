-- name: select_flight_versions
-- One page of the stored flights for `flightstate resync`: each one's
-- version and last message, FLIDs ascending after a given one (keyset
-- pagination over the primary key), so that the resync walks every flight
-- in short transactions whatever the table holds. 11g has no FETCH FIRST,
-- so ROWNUM limits the ordered inline view.
-- binds: :after_flid NUMBER  the last FLID of the previous page (below every
--        FLID for the first), :page_size NUMBER  page size
-- returns: FLID, STATE_VERSION, LAST_MESSAGE_ID, at most :page_size rows,
--          ascending
-- locks: none (the resync holds PIPELINE_LOCK; a dry run takes no lock)
SELECT FLID, STATE_VERSION, LAST_MESSAGE_ID
FROM (
    SELECT FLID, STATE_VERSION, LAST_MESSAGE_ID
    FROM FLIGHT_SCHD
    WHERE FLID > :after_flid
    ORDER BY FLID
)
WHERE ROWNUM <= :page_size
