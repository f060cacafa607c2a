-- name: select_flight_digests
-- Reads what a snapshot needs to recognise its unchanged flights: the digest
-- of each stored state with its day and version, from the main rows alone.
-- binds: $1 bigint[]  flids
-- returns: flid, state_digest (NULL when unknown), operation_day, state_version
-- locks: none (state writers are serialised by PIPELINE_LOCK)
SELECT flid, state_digest, operation_day, state_version
FROM flight_schd
WHERE flid = ANY ($1)
