-- name: select_operator_actions
-- The latest operator actions, newest first (`flightstate status`, the
-- page). Walks OPERATOR_ACTION_TAKEN_IX backwards.
-- binds: $1 bigint  how many
-- returns: action_id, taken_at, taken_by, via, action, message_id,
--          operation_day, flid, result, detail
-- locks: none
SELECT action_id,
       taken_at,
       taken_by,
       via,
       action,
       message_id,
       operation_day,
       flid,
       result,
       detail
FROM operator_action
ORDER BY taken_at DESC, action_id DESC
LIMIT $1
