-- name: select_stale_flights
-- The lifecycle clean-up's flights (`flightstate cleanup`): flights that
-- never got an operation day (created by a flight event or an ad-hoc flight),
-- unchanged since the cutoff, that no snapshot list names and that no live
-- request may still answer for: a PENDING request of the day the flight's
-- SODT falls in (the day starts at the station's day boundary), or a PENDING
-- request about no day at all. FLIDs above a cursor, ascending, at most a
-- batch. Walks FLIGHT_SCHD_OPDAY_IX (PostgreSQL indexes NULL keys).
-- binds: $1 timestamp  cutoff (UTC; UPDATED_AT before it), $2 bigint  FLID
--        cursor (only FLIDs above it), $3 varchar  live request status
--        (PENDING), $4 integer  day boundary in minutes after midnight,
--        $5 bigint  how many
-- returns: flid, last_message_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT f.flid, f.last_message_id
FROM flight_schd f
WHERE f.operation_day IS NULL
  AND f.updated_at < $1
  AND f.flid > $2
  AND NOT EXISTS (SELECT 1 FROM schd_gen_flid l WHERE l.flid = f.flid)
  AND NOT EXISTS (
      SELECT 1
      FROM req_track r
      WHERE r.status = $3
        AND (r.operation_day IS NULL
             OR (f.sodt >= r.operation_day + make_interval(mins => $4)
                 AND f.sodt < r.operation_day + 1 + make_interval(mins => $4)))
  )
ORDER BY f.flid
LIMIT $5
