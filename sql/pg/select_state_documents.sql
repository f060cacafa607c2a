-- name: select_state_documents
-- Reads what the dispatcher publishes of many flights at once: each one's
-- stored state document with the version it is of, from the main rows
-- alone (the caller batches FLIDs). The FLIDs are joined as a list, one
-- index probe each, as in select_flights.
-- binds: $1 bigint[]  flids, each at most once
-- returns: flid, state_version, state_document (NULL when not stored)
-- locks: none (the dispatcher reads in its claim's transaction, at
--        REPEATABLE READ, one snapshot for the whole batch)
SELECT f.flid, f.state_version, f.state_document
FROM unnest($1::bigint[]) AS wanted (flid)
JOIN flight_schd f USING (flid)
