-- name: select_blocked_head
-- The lowest message whose latest attempt failed on the infrastructure
-- (FAILED with INFRA or CONFLICT): the head of the queue, which waits for
-- it (docs/open-questions.md, head-of-queue limits). Walks
-- PROC_STATE_STATUS_IX forwards over the FAILED rows.
-- binds: $1 varchar  status (FAILED), $2 varchar  INFRA, $3 varchar  CONFLICT
-- returns: message_id, error_kind, error_text, attempts,
--          first_seen_at (UTC), updated_at (UTC) (no row: nothing blocks)
-- locks: none
SELECT message_id,
       error_kind,
       error_text,
       attempts,
       first_seen_at,
       updated_at
FROM proc_state
WHERE status = $1
  AND error_kind IN ($2, $3)
ORDER BY message_id
LIMIT 1
