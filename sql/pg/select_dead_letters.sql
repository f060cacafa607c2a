-- name: select_dead_letters
-- The dead letters an operator looks at (`flightstate dead list`, and
-- `dead requeue` by filter), oldest id first: every message of one status,
-- optionally of one error kind, recorded since a time, whose error text
-- holds a text, recorded on one UTC day. Walks PROC_STATE_STATUS_IX.
-- binds: $1 varchar  status (DEAD), $2 varchar  error kind or NULL (any),
--        $3 timestamp  since (UTC) or NULL (any time),
--        $4 varchar  text the error text holds or NULL (any),
--        $5 timestamp  the day's start (UTC) or NULL (any day),
--        $6 timestamp  the next day's start (UTC) or NULL,
--        $7 bigint  how many
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
  AND ($4::varchar IS NULL OR strpos(error_text, $4::varchar) > 0)
  AND ($5::timestamp IS NULL
       OR (updated_at >= $5::timestamp AND updated_at < $6::timestamp))
ORDER BY message_id
LIMIT $7
