-- name: select_dead_letters
-- The dead letters an operator looks at (`flightstate dead list`), oldest id
-- first: every message of one status, optionally of one error kind and
-- recorded since a time. Walks PROC_STATE_STATUS_IX.
-- binds: $1 varchar  status (DEAD), $2 varchar  error kind or NULL (any),
--        $3 timestamp  since (UTC) or NULL (any time), $4 bigint  how many
-- returns: message_id, status, error_kind, error_text, msg_type, msg_subtype,
--          attempts, first_seen_at, updated_at, requeue_count, requeued_by,
--          requeued_at
-- locks: none
SELECT message_id,
       status,
       error_kind,
       error_text,
       msg_type,
       msg_subtype,
       attempts,
       first_seen_at,
       updated_at,
       requeue_count,
       requeued_by,
       requeued_at
FROM proc_state
WHERE status = $1
  AND ($2::varchar IS NULL OR error_kind = $2::varchar)
  AND ($3::timestamp IS NULL OR updated_at >= $3::timestamp)
ORDER BY message_id
LIMIT $4
