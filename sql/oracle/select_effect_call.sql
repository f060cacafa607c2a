-- name: select_effect_call
-- Reads the call journaled under an idempotency key.
-- binds: :idempotency_key varchar2(64)
-- returns: call_id, idempotency_key, call_kind, target, payload, payload_digest,
--          status, send_token, attempt, deadline_at
-- locks: none
SELECT CALL_ID, IDEMPOTENCY_KEY, CALL_KIND, TARGET, PAYLOAD, PAYLOAD_DIGEST,
       STATUS, SEND_TOKEN, ATTEMPT, DEADLINE_AT
FROM EFFECT_CALL
WHERE IDEMPOTENCY_KEY = :idempotency_key
