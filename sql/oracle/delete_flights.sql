-- name: delete_flights
-- Deletes the main rows of the given flights, whatever their operation day:
-- a flight event FDEL or an SCHD DEL names the flights itself. The caller
-- deletes their detail rows in the same transaction and registers their
-- tombstones. FLIDs that are not stored are simply not returned.
-- binds: :flids FLIGHTSTATE_ID_LIST  flids;
--        out :deleted_flid number(19), out :deleted_version number(19)
-- returns: flid, state_version of each deleted flight (RETURNING INTO, one
--          array element per deleted row)
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the deleted FLIGHT_SCHD rows
DELETE FROM FLIGHT_SCHD
WHERE FLID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids)
RETURNING FLID, STATE_VERSION INTO :deleted_flid, :deleted_version
