-- name: requeue_dead_letters
-- An operator's requeue (`flightstate dead requeue`), by key, one batch entry
-- per message (array DML) that lock_dead_letters read and locked in the same
-- transaction: the DEAD message becomes FAILED with error kind REQUEUED, so
-- that the pipeline's identity-key check applies it again at its next
-- delivery instead of treating it as done; its attempts start again from 0;
-- the requeue is counted and who and when recorded. The reason it was DEAD
-- stays in ERROR_TEXT until its next outcome. The STATUS check repeats the
-- lock read's (the row is locked: it holds).
-- binds: :failed varchar2  new status (FAILED), :requeued varchar2  error
--        kind (REQUEUED), :requeued_by varchar2  who, :now timestamp (UTC),
--        :message_id number(19), :dead varchar2  status requeued (DEAD)
-- nonempty: :failed  a ProcStatus code (FAILED)
-- returns: nothing (lock_dead_letters returned the new counts)
-- locks: the requeued PROC_STATE row
UPDATE PROC_STATE
SET STATUS = :failed,
    ERROR_KIND = :requeued,
    ATTEMPTS = 0,
    NEXT_ATTEMPT_AT = NULL,
    REQUEUE_COUNT = REQUEUE_COUNT + 1,
    REQUEUED_BY = :requeued_by,
    REQUEUED_AT = :now,
    UPDATED_AT = :now
WHERE MESSAGE_ID = :message_id
  AND STATUS = :dead
