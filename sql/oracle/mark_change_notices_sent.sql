-- name: mark_change_notices_sent
-- Records that Kafka confirmed the delivery of claimed change
-- notifications: they are done. One batch entry per notice (array DML, a
-- primary-key lookup each).
-- binds: :now timestamp (UTC); per batch entry :event_id number(19)
-- returns: nothing
-- locks: the updated KAFKA_MSG rows (already claimed by this transaction)
UPDATE KAFKA_MSG
SET SENT_AT = :now,
    ATTEMPTS = ATTEMPTS + 1,
    NEXT_ATTEMPT_AT = NULL,
    LAST_ERROR = NULL
WHERE EVENT_ID = :event_id
  AND SENT_AT IS NULL
