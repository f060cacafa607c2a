-- name: requeue_dead_letters
-- An operator's requeue (`flightstate dead requeue`): each DEAD message among
-- the ids becomes FAILED with error kind REQUEUED, so that the pipeline's
-- identity-key check applies it again at its next delivery instead of
-- treating it as done; its attempts start again from 0; the requeue is
-- counted and who and when recorded. The reason it was DEAD stays in
-- ERROR_TEXT until its next outcome. Messages in another status are left
-- alone (not returned).
-- binds: :ids FLIGHTSTATE_ID_LIST  message ids, :failed varchar2  new status
--        (FAILED), :requeued varchar2  error kind (REQUEUED), :requeued_by
--        varchar2  who, :now timestamp (UTC), :dead varchar2  status
--        requeued (DEAD); out :message_id number(19), :requeue_count number(10)
-- nonempty: :failed  a ProcStatus code (FAILED)
-- returns: :message_id, :requeue_count of each message requeued (RETURNING INTO)
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the requeued PROC_STATE rows
UPDATE PROC_STATE
SET STATUS = :failed,
    ERROR_KIND = :requeued,
    ATTEMPTS = 0,
    NEXT_ATTEMPT_AT = NULL,
    REQUEUE_COUNT = REQUEUE_COUNT + 1,
    REQUEUED_BY = :requeued_by,
    REQUEUED_AT = :now,
    UPDATED_AT = :now
WHERE MESSAGE_ID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:ids AS FLIGHTSTATE_ID_LIST)) ids)
  AND STATUS = :dead
RETURNING MESSAGE_ID, REQUEUE_COUNT INTO :message_id, :requeue_count
