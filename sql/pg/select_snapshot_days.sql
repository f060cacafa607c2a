-- name: select_snapshot_days
-- The latest operation days that received a snapshot, newest first: each
-- day's snapshot version, the message that made it, when, how many flights
-- its current list names and how many flights are stored for the day now.
-- Days that only ever received ad-hoc flights or events have no ledger and
-- are not listed.
-- binds: $1 bigint  how many days
-- returns: operation_day, version, last_message_id, updated_at (UTC),
--          listed, flights
-- locks: none
SELECT g.operation_day,
       g.version,
       g.last_message_id,
       g.updated_at,
       (SELECT count(*) FROM schd_gen_flid l
        WHERE l.operation_day = g.operation_day) AS listed,
       (SELECT count(*) FROM flight_schd f
        WHERE f.operation_day = g.operation_day) AS flights
FROM schd_gen g
ORDER BY g.operation_day DESC
LIMIT $1
