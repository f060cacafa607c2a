-- name: select_snapshot_days
-- The latest operation days that received a snapshot, newest first: each
-- day's snapshot version, the message that made it, when, how many flights
-- its current list names and how many flights are stored for the day now.
-- Days that only ever received ad-hoc flights or events have no ledger and
-- are not listed. 11g has no FETCH FIRST, so ROWNUM limits the ordered view.
-- binds: :how_many NUMBER  how many days
-- returns: operation_day, version, last_message_id, updated_at (UTC),
--          listed, flights
-- locks: none
SELECT OPERATION_DAY, VERSION, LAST_MESSAGE_ID, UPDATED_AT, LISTED, FLIGHTS
FROM (
    SELECT g.OPERATION_DAY,
           g.VERSION,
           g.LAST_MESSAGE_ID,
           g.UPDATED_AT,
           (SELECT COUNT(*) FROM SCHD_GEN_FLID l
            WHERE l.OPERATION_DAY = g.OPERATION_DAY) AS LISTED,
           (SELECT COUNT(*) FROM FLIGHT_SCHD f
            WHERE f.OPERATION_DAY = g.OPERATION_DAY) AS FLIGHTS
    FROM SCHD_GEN g
    ORDER BY g.OPERATION_DAY DESC
)
WHERE ROWNUM <= :how_many
