-- name: lock_flights_of_day
-- Oracle only: the first half of a snapshot's set-difference delete. Reads
-- and locks the flights of the day's old list that the new list lacks
-- (O - N), but only those whose OPERATION_DAY is still the day; a flight
-- that another day's snapshot has taken over stays. The caller then deletes
-- exactly these rows by key (delete_flights, array DML), their detail rows,
-- and registers their tombstones. Must run before the list is replaced.
-- Not one DELETE … RETURNING: with RETURNING, ODPI-C binds every variable
-- dynamically, and an object (collection) input bind beside it is a path
-- neither ODPI-C's nor the oracle crate's tests cover (docs/oracle.md, "No
-- collection beside RETURNING"). The new list comes as one collection bind
-- (no NOT IN list, so no 1000-item limit); it never holds NULL, so NOT IN
-- means what it says.
-- binds: :operation_day date, :new_list FLIGHTSTATE_ID_LIST  the new list (N)
-- returns: flid, state_version of each flight to delete
-- hint: CARDINALITY(new_ids 5000), a day's list as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the FLIGHT_SCHD rows returned (FOR UPDATE), until commit
SELECT f.FLID, f.STATE_VERSION
FROM FLIGHT_SCHD f
WHERE f.OPERATION_DAY = :operation_day
  AND f.FLID IN (SELECT FLID FROM SCHD_GEN_FLID WHERE OPERATION_DAY = :operation_day)
  AND f.FLID NOT IN (SELECT /*+ CARDINALITY(new_ids 5000) */ new_ids.COLUMN_VALUE FROM TABLE(CAST(:new_list AS FLIGHTSTATE_ID_LIST)) new_ids)
FOR UPDATE
