-- name: select_message_record
-- Everything PROC_STATE records about one message, whatever its status
-- (`flightstate dead show`, and the write-back of a requeued message, which
-- is named after its requeue count).
-- binds: :message_id number(19)
-- returns: message_id, status, error_kind, error_text, msg_type, msg_subtype,
--          attempts, first_seen_at, updated_at, requeue_count, requeued_by,
--          requeued_at; no row when the message was never seen
-- locks: none
SELECT MESSAGE_ID AS message_id,
       STATUS AS status,
       ERROR_KIND AS error_kind,
       ERROR_TEXT AS error_text,
       MSG_TYPE AS msg_type,
       MSG_SUBTYPE AS msg_subtype,
       ATTEMPTS AS attempts,
       FIRST_SEEN_AT AS first_seen_at,
       UPDATED_AT AS updated_at,
       REQUEUE_COUNT AS requeue_count,
       REQUEUED_BY AS requeued_by,
       REQUEUED_AT AS requeued_at
FROM PROC_STATE
WHERE MESSAGE_ID = :message_id
