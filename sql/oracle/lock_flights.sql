-- name: lock_flights
-- Oracle only: the first half of delete_flights. Reads and locks the main
-- rows of the given flights, whatever their operation day (a flight event
-- FDEL or an SCHD DEL names the flights itself); the caller then deletes
-- exactly these rows by key (delete_flights, array DML), their detail rows,
-- and registers their tombstones. FLIDs that are not stored are not
-- returned. Not one DELETE … RETURNING: see lock_flights_of_day.
-- binds: :flids FLIGHTSTATE_ID_LIST  flids (distinct)
-- returns: flid, state_version of each stored flight among :flids
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the FLIGHT_SCHD rows returned (FOR UPDATE), until commit
SELECT f.FLID, f.STATE_VERSION
FROM FLIGHT_SCHD f
WHERE f.FLID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids)
FOR UPDATE
