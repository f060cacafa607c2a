-- name: select_proc_state
-- Reads what is recorded about one message.
-- binds: :message_id number(19)
-- returns: identity_key, status, error_kind, error_text, attempts
-- locks: none
SELECT IDENTITY_KEY, STATUS, ERROR_KIND, ERROR_TEXT, ATTEMPTS
FROM PROC_STATE
WHERE MESSAGE_ID = :message_id
