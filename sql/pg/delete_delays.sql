-- name: delete_delays
-- Deletes every DELY row of the given flights: the first half of the
-- group delete-insert, and the clean-up of deleted flights.
-- binds: $1 bigint[]  flids
-- returns: nothing
-- locks: the deleted rows
DELETE FROM flight_delay
WHERE flid = ANY ($1)
