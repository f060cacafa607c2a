-- name: grant_effect_calls
-- Grants calls (DESIGN §6.2): each one still grantable at the attempt the
-- worker saw and within its deadline becomes DISPATCHED with a fresh one-time
-- send token, attempt + 1, under the worker's lease epoch. The attempt
-- compare-and-set means a repeat within the same attempt grants nothing.
-- binds: $1 bigint[]  call_id, $2 integer[]  seen attempt (same order),
--        $3 varchar  status DISPATCHED, $4 bigint  lease_epoch,
--        $5 timestamp  now (UTC), $6 varchar[]  grantable statuses (PENDING, NOT_SENT)
-- returns: call_id, send_token, attempt of each grant given
-- locks: the granted EFFECT_CALL rows
UPDATE effect_call AS c
SET status = $3,
    send_token = gen_random_uuid()::text,
    attempt = c.attempt + 1,
    lease_epoch = $4,
    dispatched_at = $5,
    updated_at = $5
FROM unnest($1::bigint[], $2::integer[]) AS g (call_id, seen_attempt)
WHERE c.call_id = g.call_id
  AND c.attempt = g.seen_attempt
  AND c.status = ANY($6)
  AND (c.deadline_at IS NULL OR c.deadline_at > $5)
RETURNING c.call_id, c.send_token, c.attempt
