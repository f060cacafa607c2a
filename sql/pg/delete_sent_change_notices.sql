-- name: delete_sent_change_notices
-- Removes claimed change notifications whose delivery Kafka confirmed: a
-- row is done once its message is on the topic, and the outbox keeps
-- pending rows only (see delete_sent_state_events).
-- binds: $1 bigint[]  event_id
-- returns: nothing
-- locks: the deleted KAFKA_MSG rows (already claimed by this transaction)
DELETE FROM kafka_msg
WHERE event_id = ANY ($1)
