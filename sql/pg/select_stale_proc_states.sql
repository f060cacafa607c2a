-- name: select_stale_proc_states
-- The processing records the lifecycle clean-up may purge: SUCCEEDED
-- messages whose record has not changed since the cutoff and whose mailbox
-- write-back leaves no journaled call behind: every EFFECT_CALL row that
-- targets the message is settled and older than the calls' cutoff, so the
-- same clean-up purges it first (select_settled_effect_calls); an open call
-- keeps the record. A message delivered again after its record is purged is
-- applied again (docs/operations.md). FAILED and DEAD messages are never
-- purged: the first are still being retried, the second wait for an
-- operator. Message ids above a cursor, ascending, at most a batch; walks
-- PROC_STATE_STATUS_IX, and EFFECT_CALL_TARGET_IX for each.
-- binds: $1 varchar  status purged (SUCCEEDED), $2 timestamp  cutoff (UTC;
--        UPDATED_AT before it), $3 bigint  message id cursor, $4 varchar
--        write-back target prefix (cminmsgs:), $5 varchar  ACCEPTED,
--        $6 varchar  REJECTED, $7 varchar  CONFLICT, $8 timestamp  the
--        calls' cutoff (UTC), $9 bigint  how many
-- returns: message_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT p.message_id
FROM proc_state p
WHERE p.status = $1
  AND p.updated_at < $2
  AND p.message_id > $3
  AND NOT EXISTS (
      SELECT 1
      FROM effect_call c
      WHERE c.target = $4 || p.message_id::text
        AND NOT (c.status IN ($5, $6, $7) AND c.updated_at < $8)
  )
ORDER BY p.message_id
LIMIT $9
