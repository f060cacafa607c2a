-- name: insert_operator_action
-- Records an operator's action (docs/operations.md, "The operator's
-- record") in the action's own state transaction: a requeue, a release or
-- reject, a request for a day, refused ones too.
-- binds: $1 timestamp  taken at (UTC), $2 varchar  taken by,
--        $3 varchar  via (CLI, PAGE), $4 varchar  action (REQUEUE, RELEASE,
--        REJECT, REQUEST_DAY), $5 bigint  message id or NULL,
--        $6 date  operation day or NULL, $7 bigint  FLID or NULL,
--        $8 varchar  result code, $9 varchar  detail or NULL
-- returns: nothing
-- locks: none beyond the inserted row
INSERT INTO operator_action (
    taken_at, taken_by, via, action, message_id, operation_day, flid,
    result, detail
)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
