-- name: delete_sent_state_events
-- Removes claimed state events whose delivery Kafka confirmed (or that a
-- newer row of the same flight made redundant): a row is done once its
-- message is on the topic, and the outbox keeps pending rows only. A
-- DELETE rather than an UPDATE that marks the row: no new row version and
-- no index entry per event (about a quarter of the time per 1,000 rows);
-- the topic, not the table, is the record of what was sent.
-- binds: $1 bigint[]  event_id
-- returns: nothing
-- locks: the deleted KAFKA_SCHD rows (already claimed by this transaction)
DELETE FROM kafka_schd
WHERE event_id = ANY ($1)
