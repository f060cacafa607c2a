-- name: delete_route_points
-- Deletes every ROUT, ERUT row of the given flights: the first half of the
-- group delete-insert, and the clean-up of deleted flights.
-- binds: $1 bigint[]  flids
-- returns: nothing
-- locks: the deleted rows
DELETE FROM flight_route_point
WHERE flid = ANY ($1)
