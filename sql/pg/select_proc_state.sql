-- name: select_proc_state
-- Reads what is recorded about one message.
-- binds: $1 bigint  message_id
-- returns: identity_key, status, error_kind, error_text, attempts
-- locks: none
SELECT identity_key, status, error_kind, error_text, attempts
FROM proc_state
WHERE message_id = $1
