-- name: delete_flights
-- Deletes the main rows of the given flights, whatever their operation day:
-- a flight event FDEL or an SCHD DEL names the flights itself. The caller
-- deletes their detail rows in the same transaction and registers their
-- tombstones. FLIDs that are not stored are simply not returned.
-- binds: $1 bigint[]  flids
-- returns: flid, state_version of each deleted flight
-- locks: the deleted FLIGHT_SCHD rows
DELETE FROM flight_schd
WHERE flid = ANY ($1)
RETURNING flid, state_version
