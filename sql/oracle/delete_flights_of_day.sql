-- name: delete_flights_of_day
-- The set-difference delete of a snapshot: the flights of the day's old
-- list that the new list lacks (O - N), but only those whose OPERATION_DAY is
-- still the day. A flight that another day's snapshot has taken over stays.
-- Must run before the list is replaced. The caller deletes the returned
-- flights' detail rows and registers their tombstones. The new list comes as
-- one collection bind (no NOT IN list, so no 1000-item limit); it never holds
-- NULL, so NOT IN means what it says.
-- binds: :operation_day date, :new_list FLIGHTSTATE_ID_LIST  the new list (N);
--        out :deleted_flid number(19), out :deleted_version number(19)
-- returns: flid, state_version of each deleted flight (RETURNING INTO, one
--          array element per deleted row)
-- hint: CARDINALITY(new_ids 5000), a day's list as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the deleted FLIGHT_SCHD rows
DELETE FROM FLIGHT_SCHD
WHERE OPERATION_DAY = :operation_day
  AND FLID IN (SELECT FLID FROM SCHD_GEN_FLID WHERE OPERATION_DAY = :operation_day)
  AND FLID NOT IN (SELECT /*+ CARDINALITY(new_ids 5000) */ new_ids.COLUMN_VALUE FROM TABLE(CAST(:new_list AS FLIGHTSTATE_ID_LIST)) new_ids)
RETURNING FLID, STATE_VERSION INTO :deleted_flid, :deleted_version
