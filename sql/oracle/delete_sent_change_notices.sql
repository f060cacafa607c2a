-- name: delete_sent_change_notices
-- Removes claimed change notifications whose delivery Kafka confirmed: a
-- row is done once its message is on the topic, and the outbox keeps
-- pending rows only. One batch entry per notice (array DML, a primary-key
-- lookup each).
-- binds: per batch entry :event_id number(19)
-- returns: nothing
-- locks: the deleted KAFKA_MSG rows (already claimed by this transaction)
DELETE FROM KAFKA_MSG
WHERE EVENT_ID = :event_id
