-- name: insert_effect_intent
-- Records the intent of a call inside the business transaction that decides
-- it (DESIGN §6.1). A key already journaled is left as it is: its digest can
-- never change, and the caller compares it.
-- binds: $1 char(64)  idempotency_key, $2 varchar  scope, $3 varchar  step,
--        $4 varchar  sub_key, $5 varchar  call_kind, $6 varchar  target,
--        $7 text  payload, $8 char(64)  payload_digest,
--        $9 timestamp  deadline_at (UTC, NULL = none), $10 timestamp  now (UTC)
-- returns: call_id; no row when the key was already journaled
-- locks: the new EFFECT_CALL row (the key's unique index entry)
INSERT INTO effect_call (
    idempotency_key, scope, step, sub_key, call_kind, target, payload,
    payload_digest, deadline_at, created_at, updated_at
)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
ON CONFLICT (idempotency_key) DO NOTHING
RETURNING call_id
