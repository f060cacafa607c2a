-- name: count_due_change_notices
-- Oracle only: how many pending change notifications of a lane are due,
-- counted when claim_change_notices locked nothing, for the reason given in
-- count_due_state_events. The predicate is the claim's candidate subquery,
-- through the same function-based indexes.
-- binds: :now timestamp (UTC), :lanes number  lanes (1: the whole outbox),
--        :lane number  this lane, 0..:lanes-1
-- returns: n
-- locks: none
SELECT COUNT(*) AS N
FROM KAFKA_MSG c
WHERE (CASE WHEN c.SENT_AT IS NULL THEN c.EVENT_ID END) IS NOT NULL
  AND (c.NEXT_ATTEMPT_AT IS NULL OR c.NEXT_ATTEMPT_AT <= :now)
  AND MOD(NVL(c.FLID, 0), :lanes) = :lane
  AND NOT EXISTS (
      SELECT 1
      FROM KAFKA_MSG w
      WHERE (CASE WHEN w.SENT_AT IS NULL THEN w.FLID END) = c.FLID
        AND w.NEXT_ATTEMPT_AT > :now)
