-- name: schedule_retry
-- Records when a FAILED message at the head of the queue will be tried
-- again (capped exponential backoff with jitter, computed by the pump).
-- binds: :message_id number(19), :next_attempt_at timestamp (UTC),
--        :now timestamp (UTC), :status varchar2  FAILED
-- returns: nothing
-- locks: the PROC_STATE row
UPDATE PROC_STATE
SET NEXT_ATTEMPT_AT = :next_attempt_at,
    UPDATED_AT = :now
WHERE MESSAGE_ID = :message_id
  AND STATUS = :status
