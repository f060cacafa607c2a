-- name: record_outcomes
-- Records the outcome of one processing attempt of each of many messages (a
-- group the pump commits together, or one message): a message's first
-- attempt inserts its row, later ones update it and count the attempt. The
-- identity key is never changed once recorded, nor is the time the mailbox
-- received the message: the first attempt that knew it recorded it (a tool's
-- attempt knows none). The message ids are distinct.
-- binds: $1 bigint[]  message_id, $2 varchar[]  identity_key, $3 varchar[]  status,
--        $4 varchar[]  error_kind, $5 varchar[]  error_text, $6 varchar[]  msg_type,
--        $7 varchar[]  msg_subtype, $8 timestamp[]  next_attempt_at,
--        $9 timestamp[]  now (UTC), $10 timestamp[]  received_at (UTC, NULL when
--        not known)
-- returns: nothing
-- locks: the inserted or updated PROC_STATE rows
INSERT INTO proc_state (
    message_id, identity_key, status, error_kind, error_text, attempts,
    msg_type, msg_subtype, next_attempt_at, first_seen_at, updated_at, received_at
)
SELECT o.message_id, o.identity_key, o.status, o.error_kind, o.error_text, 1,
    o.msg_type, o.msg_subtype, o.next_attempt_at, o.now_at, o.now_at, o.received_at
FROM UNNEST($1::bigint[], $2::varchar[], $3::varchar[], $4::varchar[], $5::varchar[],
        $6::varchar[], $7::varchar[], $8::timestamp[], $9::timestamp[], $10::timestamp[])
    AS o (message_id, identity_key, status, error_kind, error_text,
        msg_type, msg_subtype, next_attempt_at, now_at, received_at)
ON CONFLICT (message_id) DO UPDATE SET
    status = EXCLUDED.status,
    error_kind = EXCLUDED.error_kind,
    error_text = EXCLUDED.error_text,
    attempts = proc_state.attempts + 1,
    msg_type = EXCLUDED.msg_type,
    msg_subtype = EXCLUDED.msg_subtype,
    next_attempt_at = EXCLUDED.next_attempt_at,
    updated_at = EXCLUDED.updated_at,
    received_at = coalesce(proc_state.received_at, EXCLUDED.received_at)
