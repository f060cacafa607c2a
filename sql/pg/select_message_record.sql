-- name: select_message_record
-- Everything PROC_STATE records about one message, whatever its status
-- (`flightstate dead show`, and the write-back of a requeued message, which
-- is named after its requeue count).
-- binds: $1 bigint  message_id
-- returns: message_id, status, error_kind, error_text, msg_type, msg_subtype,
--          attempts, first_seen_at, updated_at, requeue_count, requeued_by,
--          requeued_at; no row when the message was never seen
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
WHERE message_id = $1
