-- name: insert_operator_action
-- Records an operator's action (docs/operations.md, "The operator's
-- record") in the action's own state transaction: a requeue, a release or
-- reject, a request for a day, refused ones too. ACTION_ID from
-- OPERATOR_ACTION_SEQ (11g has no identity).
-- binds: :taken_at timestamp  taken at (UTC), :taken_by varchar2  taken by,
--        :via varchar2  via (CLI, PAGE), :action varchar2  action (REQUEUE,
--        RELEASE, REJECT, REQUEST_DAY), :message_id number  message id or
--        NULL, :operation_day date  operation day or NULL, :flid number  FLID
--        or NULL, :result varchar2  result code, :detail varchar2  detail or
--        NULL
-- nonempty: :taken_by  refused empty first by store::nonempty
-- nonempty: :via  a Via code (CLI, PAGE)
-- nonempty: :action  an ActionKind code
-- nonempty: :result  a result code of the action's outcome
-- returns: nothing
-- locks: none beyond the inserted row
INSERT INTO OPERATOR_ACTION (
    ACTION_ID, TAKEN_AT, TAKEN_BY, VIA, ACTION, MESSAGE_ID, OPERATION_DAY,
    FLID, RESULT, DETAIL
)
VALUES (
    OPERATOR_ACTION_SEQ.NEXTVAL, :taken_at, :taken_by, :via, :action,
    :message_id, :operation_day, :flid, :result, :detail
)
