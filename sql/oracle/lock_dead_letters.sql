-- name: lock_dead_letters
-- Oracle only: the first half of an operator's requeue. Reads and locks the
-- DEAD messages among the ids, with the requeue count each will have; the
-- caller then requeues exactly these by key (requeue_dead_letters, array
-- DML). Messages in another status are left alone (not returned). Not one
-- UPDATE … RETURNING: see lock_flights_of_day.
-- binds: :ids FLIGHTSTATE_ID_LIST  message ids, :dead varchar2  status
--        requeued (DEAD)
-- returns: message_id, requeue_count (after the requeue) of each DEAD message
--          among :ids
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the PROC_STATE rows returned (FOR UPDATE), until commit
SELECT p.MESSAGE_ID, p.REQUEUE_COUNT + 1 AS REQUEUE_COUNT
FROM PROC_STATE p
WHERE p.MESSAGE_ID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:ids AS FLIGHTSTATE_ID_LIST)) ids)
  AND p.STATUS = :dead
FOR UPDATE
