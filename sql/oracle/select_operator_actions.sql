-- name: select_operator_actions
-- The latest operator actions, newest first (`flightstate status`, the
-- page). Walks OPERATOR_ACTION_TAKEN_IX backwards; ROWNUM outside the
-- ordered inline view (11g has no FETCH FIRST).
-- binds: :max_rows number  how many
-- returns: action_id, taken_at, taken_by, via, action, message_id,
--          operation_day, flid, result, detail
-- locks: none
SELECT action_id, taken_at, taken_by, via, action, message_id,
       operation_day, flid, result, detail
FROM (
    SELECT ACTION_ID AS action_id,
           TAKEN_AT AS taken_at,
           TAKEN_BY AS taken_by,
           VIA AS via,
           ACTION AS action,
           MESSAGE_ID AS message_id,
           OPERATION_DAY AS operation_day,
           FLID AS flid,
           RESULT AS result,
           DETAIL AS detail
    FROM OPERATOR_ACTION
    ORDER BY TAKEN_AT DESC, ACTION_ID DESC
)
WHERE ROWNUM <= :max_rows
