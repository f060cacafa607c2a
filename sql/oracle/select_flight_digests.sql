-- name: select_flight_digests
-- Reads what a snapshot needs to recognise its unchanged flights: the digest
-- of each stored state with its day and version, from the main rows alone.
-- binds: :flids FLIGHTSTATE_ID_LIST  flids (distinct)
-- returns: one row per stored FLID among :flids: flid, state_digest (NULL when
-- unknown), operation_day, state_version
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none (state writers are serialised by PIPELINE_LOCK)
SELECT /*+ LEADING(ids) USE_NL(f) CARDINALITY(ids 100) */
    f.FLID,
    f.STATE_DIGEST,
    f.OPERATION_DAY,
    f.STATE_VERSION
FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids,
    FLIGHT_SCHD f
WHERE f.FLID = ids.COLUMN_VALUE
