-- name: insert_change_notices
-- Registers change notifications in the KAFKA_MSG outbox: what changed and
-- which message changed it, never the state itself.
-- binds: $1 bigint[]  flid (NULL for a notice about no single flight),
--        $2 varchar[]  change_kind, $3 text[]  payload (JSON),
--        $4 bigint[]  message_id (each row's message), $5 timestamp  created_at (UTC)
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO kafka_msg (flid, change_kind, payload, message_id, created_at)
SELECT notice.flid, notice.change_kind, notice.payload, notice.message_id, $5
FROM UNNEST($1::bigint[], $2::varchar[], $3::text[], $4::bigint[])
    AS notice (flid, change_kind, payload, message_id)
