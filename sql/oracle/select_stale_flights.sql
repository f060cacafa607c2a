-- name: select_stale_flights
-- The lifecycle clean-up's flights (`flightstate cleanup`): flights that
-- never got an operation day (created by a flight event or an ad-hoc flight),
-- unchanged since the cutoff, that no snapshot list names and that no live
-- request may still answer for: a PENDING request of the day the flight's
-- SODT falls in (the day starts at the station's day boundary), or a PENDING
-- request about no day at all. FLIDs above a cursor, ascending, at most a
-- batch. 11g has no FETCH FIRST, so ROWNUM limits the ordered view. Oracle
-- does not index rows whose key is all NULL: this reads FLIGHT_SCHD whole,
-- which is why the clean-up runs in batches off the busy hours.
-- binds: :cutoff date  cutoff (UTC; UPDATED_AT before it), :after_flid
--        number  FLID cursor (only FLIDs above it), :pending varchar2  live
--        request status (PENDING), :boundary_minutes number  day boundary in
--        minutes after midnight, :max_rows number  how many
-- returns: flid, last_message_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT flid, last_message_id
FROM (
    SELECT f.FLID AS flid,
           f.LAST_MESSAGE_ID AS last_message_id
    FROM FLIGHT_SCHD f
    WHERE f.OPERATION_DAY IS NULL
      AND f.UPDATED_AT < :cutoff
      AND f.FLID > :after_flid
      AND NOT EXISTS (SELECT 1 FROM SCHD_GEN_FLID l WHERE l.FLID = f.FLID)
      AND NOT EXISTS (
          SELECT 1
          FROM REQ_TRACK r
          WHERE r.STATUS = :pending
            AND (r.OPERATION_DAY IS NULL
                 OR (f.SODT >= r.OPERATION_DAY + :boundary_minutes / 1440
                     AND f.SODT < r.OPERATION_DAY + 1 + :boundary_minutes / 1440))
      )
    ORDER BY f.FLID
)
WHERE ROWNUM <= :max_rows
