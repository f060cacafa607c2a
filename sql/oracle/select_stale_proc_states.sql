-- name: select_stale_proc_states
-- The processing records the lifecycle clean-up may purge: SUCCEEDED
-- messages whose record has not changed since the cutoff and whose mailbox
-- write-back leaves no journaled call behind: every EFFECT_CALL row that
-- targets the message is settled and older than the calls' cutoff, so the
-- same clean-up purges it first (select_settled_effect_calls); an open call
-- keeps the record. A message delivered again after its record is purged is
-- applied again (docs/operations.md). FAILED and DEAD messages are never
-- purged: the first are still being retried, the second wait for an
-- operator. Message ids above a cursor, ascending, at most a batch; ROWNUM
-- limits the ordered view.
-- binds: :status varchar2  status purged (SUCCEEDED), :cutoff timestamp
--        cutoff (UTC; UPDATED_AT before it), :after_id number  message id
--        cursor, :target_prefix varchar2  write-back target prefix
--        (cminmsgs:), :accepted varchar2, :rejected varchar2,
--        :conflict varchar2  the settled statuses, :calls_cutoff timestamp
--        the calls' cutoff (UTC), :max_rows number  how many
-- returns: message_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT message_id
FROM (
    SELECT p.MESSAGE_ID AS message_id
    FROM PROC_STATE p
    WHERE p.STATUS = :status
      AND p.UPDATED_AT < :cutoff
      AND p.MESSAGE_ID > :after_id
      AND NOT EXISTS (
          SELECT 1
          FROM EFFECT_CALL c
          WHERE c.TARGET = :target_prefix || TO_CHAR(p.MESSAGE_ID)
            AND NOT (c.STATUS IN (:accepted, :rejected, :conflict)
                     AND c.UPDATED_AT < :calls_cutoff)
      )
    ORDER BY p.MESSAGE_ID
)
WHERE ROWNUM <= :max_rows
