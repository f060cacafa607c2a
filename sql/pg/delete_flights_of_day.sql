-- name: delete_flights_of_day
-- The set-difference delete of a snapshot: the flights of the day's old
-- list that the new list lacks (O - N), but only those whose OPERATION_DAY is
-- still the day. A flight that another day's snapshot has taken over stays.
-- Must run before the list is replaced. The caller deletes the returned
-- flights' detail rows and registers their tombstones.
-- binds: $1 date  operation_day, $2 bigint[]  the new list (N)
-- returns: flid, state_version of each deleted flight
-- locks: the deleted FLIGHT_SCHD rows
DELETE FROM flight_schd
WHERE operation_day = $1
  AND flid IN (SELECT flid FROM schd_gen_flid WHERE operation_day = $1)
  AND flid <> ALL ($2::bigint[])
RETURNING flid, state_version
