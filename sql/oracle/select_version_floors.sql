-- name: select_version_floors
-- The version floors of flights about to be created: the tombstone
-- version of each one deleted before (FLIDs never deleted are absent). The
-- FLIDs come as one collection bind (no IN list, so no 1000-item limit).
-- binds: :flids FLIGHTSTATE_ID_LIST  flids (distinct)
-- returns: flid, state_version
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none
SELECT /*+ LEADING(ids) USE_NL(v) CARDINALITY(ids 100) */ v.FLID, v.STATE_VERSION
FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids,
    FLIGHT_VERSION_FLOOR v
WHERE v.FLID = ids.COLUMN_VALUE
