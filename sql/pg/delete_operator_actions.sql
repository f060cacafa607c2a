-- name: delete_operator_actions
-- Removes the old actions select_old_operator_actions chose, in the same
-- transaction; repeats the cutoff, so that nothing newer goes.
-- binds: $1 bigint[]  action_id, $2 timestamp  cutoff (UTC)
-- returns: nothing (the row count)
-- locks: the deleted OPERATOR_ACTION rows
DELETE FROM operator_action
WHERE action_id = ANY ($1)
  AND taken_at < $2
