-- name: select_flight_versions
-- One page of the stored flights for `flightstate resync`: each one's
-- version and last message, FLIDs ascending after a given one (keyset
-- pagination over the primary key), so that the resync walks every flight
-- in short transactions whatever the table holds.
-- binds: $1 bigint  the last FLID of the previous page (below every FLID for
--        the first), $2 bigint  page size
-- returns: flid, state_version, last_message_id, at most $2 rows, ascending
-- locks: none (the resync holds PIPELINE_LOCK; a dry run takes no lock)
SELECT flid, state_version, last_message_id
FROM flight_schd
WHERE flid > $1
ORDER BY flid
LIMIT $2
