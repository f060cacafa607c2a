-- name: select_effect_call
-- Reads the call journaled under an idempotency key.
-- binds: $1 char(64)  idempotency_key
-- returns: call_id, idempotency_key, call_kind, target, payload, payload_digest,
--          status, send_token, attempt, deadline_at
-- locks: none
SELECT call_id, idempotency_key, call_kind, target, payload, payload_digest,
       status, send_token, attempt, deadline_at
FROM effect_call
WHERE idempotency_key = $1
