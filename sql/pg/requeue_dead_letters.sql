-- name: requeue_dead_letters
-- An operator's requeue (`flightstate dead requeue`): each DEAD message among
-- the ids becomes FAILED with error kind REQUEUED, so that the pipeline's
-- identity-key check applies it again at its next delivery instead of
-- treating it as done; its attempts start again from 0; the requeue is
-- counted and who and when recorded. The reason it was DEAD stays in
-- ERROR_TEXT until its next outcome. Messages in another status are left
-- alone (not returned).
-- binds: $1 bigint[]  message_id, $2 varchar  new status (FAILED),
--        $3 varchar  error kind (REQUEUED), $4 varchar  requeued by,
--        $5 timestamp  now (UTC), $6 varchar  status requeued (DEAD)
-- returns: message_id, requeue_count of each message requeued
-- locks: the requeued PROC_STATE rows
UPDATE proc_state
SET status = $2,
    error_kind = $3,
    attempts = 0,
    next_attempt_at = NULL,
    requeue_count = requeue_count + 1,
    requeued_by = $4,
    requeued_at = $5,
    updated_at = $5
WHERE message_id = ANY ($1)
  AND status = $6
RETURNING message_id, requeue_count
