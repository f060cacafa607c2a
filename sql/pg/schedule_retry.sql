-- name: schedule_retry
-- Records when a FAILED message at the head of the queue will be tried
-- again (capped exponential backoff with jitter, computed by the pump).
-- binds: $1 bigint  message_id, $2 timestamp  next_attempt_at (UTC),
--        $3 timestamp  now (UTC), $4 varchar  status FAILED
-- returns: nothing
-- locks: the PROC_STATE row
UPDATE proc_state
SET next_attempt_at = $2,
    updated_at = $3
WHERE message_id = $1
  AND status = $4
