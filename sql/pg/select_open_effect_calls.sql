-- name: select_open_effect_calls
-- The calls that still need work, oldest first: granted calls whose outcome
-- is open (to resolve by reading the target back, never to send again), and
-- grantable calls whose deadline has not passed. One branch per status set,
-- each a range of EFFECT_CALL_STATUS_IX: the open calls are found without
-- reading the settled ones, however many a year leaves.
-- binds: $1 varchar[]  unresolved statuses (DISPATCHED, UNKNOWN),
--        $2 varchar[]  grantable statuses (PENDING, NOT_SENT),
--        $3 timestamp  now (UTC), $4 bigint  limit
-- returns: call_id, idempotency_key, call_kind, target, payload, payload_digest,
--          status, send_token, attempt, deadline_at
-- locks: none
SELECT call_id, idempotency_key, call_kind, target, payload, payload_digest,
       status, send_token, attempt, deadline_at
FROM (
    SELECT call_id, idempotency_key, call_kind, target, payload, payload_digest,
           status, send_token, attempt, deadline_at
    FROM effect_call
    WHERE status = ANY($1)
    UNION ALL
    SELECT call_id, idempotency_key, call_kind, target, payload, payload_digest,
           status, send_token, attempt, deadline_at
    FROM effect_call
    WHERE status = ANY($2)
      AND (deadline_at IS NULL OR deadline_at > $3)
) c
ORDER BY call_id
LIMIT $4
