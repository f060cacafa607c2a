-- name: select_state_documents
-- Reads what the dispatcher publishes of many flights at once: each one's
-- stored state document with the version it is of, from the main rows
-- alone (the caller batches FLIDs). The FLIDs are joined as a collection,
-- one index probe each, as in select_flights.
-- binds: :flids FLIGHTSTATE_ID_LIST  flids (distinct)
-- returns: one row per stored FLID among :flids: flid, state_version,
-- state_document (CLOB; NULL when not stored)
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none (the dispatcher reads in its claim's transaction, one
--        read-consistent snapshot for the whole batch)
SELECT /*+ LEADING(ids) USE_NL(f) CARDINALITY(ids 100) */
    f.FLID,
    f.STATE_VERSION,
    f.STATE_DOCUMENT
FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids,
    FLIGHT_SCHD f
WHERE f.FLID = ids.COLUMN_VALUE
