-- name: insert_state_events
-- Registers state events (STATE or TOMBSTONE) in the KAFKA_SCHD outbox, in
-- the same transaction as the state they announce.
-- binds: $1 bigint[]  flid, $2 bigint[]  state_version, $3 varchar[]  event_kind,
--        $4 bigint[]  message_id (each row's message), $5 timestamp  created_at (UTC)
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO kafka_schd (flid, state_version, event_kind, message_id, created_at)
SELECT event.flid, event.state_version, event.event_kind, event.message_id, $5
FROM UNNEST($1::bigint[], $2::bigint[], $3::varchar[], $4::bigint[])
    AS event (flid, state_version, event_kind, message_id)
