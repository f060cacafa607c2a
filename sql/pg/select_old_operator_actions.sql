-- name: select_old_operator_actions
-- The operator actions the lifecycle clean-up may remove: taken before the
-- cutoff (cleanup.action_days). Action ids above a cursor, ascending, at
-- most a batch.
-- binds: $1 timestamp  cutoff (UTC; TAKEN_AT before it), $2 bigint  action
--        id cursor, $3 bigint  how many
-- returns: action_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT a.action_id
FROM operator_action a
WHERE a.taken_at < $1
  AND a.action_id > $2
ORDER BY a.action_id
LIMIT $3
