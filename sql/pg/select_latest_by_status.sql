-- name: select_latest_by_status
-- The latest messages of one status (the status page lists the latest DEAD
-- ones with their reasons), newest id first. Walks PROC_STATE_STATUS_IX
-- backwards: as cheap with a million rows as with ten.
-- binds: $1 varchar  status (DEAD), $2 bigint  how many
-- returns: message_id, error_kind, error_text, msg_type, msg_subtype,
--          attempts, updated_at (UTC)
-- locks: none
SELECT message_id,
       error_kind,
       error_text,
       msg_type,
       msg_subtype,
       attempts,
       updated_at
FROM proc_state
WHERE status = $1
ORDER BY message_id DESC
LIMIT $2
