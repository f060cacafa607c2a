-- name: mark_state_events_sent
-- Records that Kafka confirmed the delivery of claimed state events (or
-- that a newer row of the same flight made them redundant): they are done.
-- binds: $1 bigint[]  event_id, $2 timestamp  now (UTC)
-- returns: nothing
-- locks: the updated KAFKA_SCHD rows (already claimed by this transaction)
UPDATE kafka_schd
SET sent_at = $2,
    attempts = attempts + 1,
    next_attempt_at = NULL,
    last_error = NULL
WHERE event_id = ANY ($1)
  AND sent_at IS NULL
