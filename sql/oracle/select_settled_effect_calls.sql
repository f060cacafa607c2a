-- name: select_settled_effect_calls
-- The journaled calls the lifecycle clean-up may purge: settled for good
-- (ACCEPTED, REJECTED, CONFLICT: never granted again) and unchanged since the
-- cutoff. Open calls (PENDING, DISPATCHED, NOT_SENT, UNKNOWN) are never
-- purged. Call ids above a cursor, ascending, at most a batch; ROWNUM limits
-- the ordered view.
-- binds: :accepted varchar2, :rejected varchar2, :conflict varchar2  the
--        settled statuses, :cutoff timestamp  cutoff (UTC; UPDATED_AT before
--        it), :after_id number  call id cursor, :max_rows number  how many
-- returns: call_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT call_id
FROM (
    SELECT c.CALL_ID AS call_id
    FROM EFFECT_CALL c
    WHERE c.STATUS IN (:accepted, :rejected, :conflict)
      AND c.UPDATED_AT < :cutoff
      AND c.CALL_ID > :after_id
    ORDER BY c.CALL_ID
)
WHERE ROWNUM <= :max_rows
