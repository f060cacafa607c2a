-- name: delete_effect_calls
-- Purges the settled calls select_settled_effect_calls chose, in the same
-- transaction; a call that is not settled is left alone.
-- binds: $1 bigint[]  call_id, $2 varchar  ACCEPTED, $3 varchar  REJECTED,
--        $4 varchar  CONFLICT
-- returns: nothing (the row count)
-- locks: the deleted EFFECT_CALL rows
DELETE FROM effect_call
WHERE call_id = ANY ($1)
  AND status IN ($2, $3, $4)
