-- name: select_proc_states
-- Reads what is recorded about many messages at once (a group the pump
-- commits together, or one message).
-- binds: $1 bigint[]  message_id
-- returns: message_id, identity_key, status, error_kind, error_text, attempts
--          of each message among $1 that has a row
-- locks: none
SELECT message_id, identity_key, status, error_kind, error_text, attempts
FROM proc_state
WHERE message_id = ANY ($1)
