-- name: select_current_versions
-- `flightstate republish`: the current version and last message of the
-- stored flights among a batch of FLIDs, read under PIPELINE_LOCK in the
-- transaction that queues their states again, so that each queued row names
-- the version its flight is at when the transaction commits. FLIDs not
-- stored are simply missing.
-- binds: $1 bigint[]  flids
-- returns: flid, state_version, last_message_id, ascending by flid
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT flid, state_version, last_message_id
FROM flight_schd
WHERE flid = ANY ($1)
ORDER BY flid
