-- name: record_outcome
-- Records the outcome of one processing attempt of a message: the first
-- attempt inserts the row, later ones update it and count the attempt. The
-- identity key is never changed once recorded.
-- binds: $1 bigint  message_id, $2 varchar  identity_key, $3 varchar  status,
--        $4 varchar  error_kind, $5 varchar  error_text, $6 varchar  msg_type,
--        $7 varchar  msg_subtype, $8 timestamp  next_attempt_at, $9 timestamp  now (UTC)
-- returns: nothing
-- locks: the PROC_STATE row
INSERT INTO proc_state (
    message_id, identity_key, status, error_kind, error_text, attempts,
    msg_type, msg_subtype, next_attempt_at, first_seen_at, updated_at
)
VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $9)
ON CONFLICT (message_id) DO UPDATE SET
    status = EXCLUDED.status,
    error_kind = EXCLUDED.error_kind,
    error_text = EXCLUDED.error_text,
    attempts = proc_state.attempts + 1,
    msg_type = EXCLUDED.msg_type,
    msg_subtype = EXCLUDED.msg_subtype,
    next_attempt_at = EXCLUDED.next_attempt_at,
    updated_at = EXCLUDED.updated_at
