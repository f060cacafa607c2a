-- name: select_current_versions
-- `flightstate republish`: the current version and last message of the
-- stored flights among a batch of FLIDs, read under PIPELINE_LOCK in the
-- transaction that queues their states again, so that each queued row names
-- the version its flight is at when the transaction commits. FLIDs not
-- stored are simply missing. The FLIDs come as one collection bind (no IN
-- list, so no 1000-item limit).
-- binds: :flids FLIGHTSTATE_ID_LIST  flids (distinct)
-- returns: FLID, STATE_VERSION, LAST_MESSAGE_ID, ascending by FLID
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT /*+ LEADING(ids) USE_NL(f) CARDINALITY(ids 100) */
    f.FLID,
    f.STATE_VERSION,
    f.LAST_MESSAGE_ID
FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids,
    FLIGHT_SCHD f
WHERE f.FLID = ids.COLUMN_VALUE
ORDER BY f.FLID
