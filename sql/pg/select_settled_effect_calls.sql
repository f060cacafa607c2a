-- name: select_settled_effect_calls
-- The journaled calls the lifecycle clean-up may purge: settled for good
-- (ACCEPTED, REJECTED, CONFLICT: never granted again) and unchanged since the
-- cutoff. Open calls (PENDING, DISPATCHED, NOT_SENT, UNKNOWN) are never
-- purged. Call ids above a cursor, ascending, at most a batch; walks
-- EFFECT_CALL_STATUS_IX.
-- binds: $1 varchar  ACCEPTED, $2 varchar  REJECTED, $3 varchar  CONFLICT,
--        $4 timestamp  cutoff (UTC; UPDATED_AT before it), $5 bigint  call id
--        cursor, $6 bigint  how many
-- returns: call_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT c.call_id
FROM effect_call c
WHERE c.status IN ($1, $2, $3)
  AND c.updated_at < $4
  AND c.call_id > $5
ORDER BY c.call_id
LIMIT $6
