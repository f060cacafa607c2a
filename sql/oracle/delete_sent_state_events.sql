-- name: delete_sent_state_events
-- Removes claimed state events whose delivery Kafka confirmed (or that a
-- newer row of the same flight made redundant): a row is done once its
-- message is on the topic, and the outbox keeps pending rows only. One
-- batch entry per event (array DML, a primary-key lookup each).
-- binds: per batch entry :event_id number(19)
-- returns: nothing
-- locks: the deleted KAFKA_SCHD rows (already claimed by this transaction)
DELETE FROM KAFKA_SCHD
WHERE EVENT_ID = :event_id
