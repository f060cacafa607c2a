-- name: count_due_state_events
-- Oracle only: how many pending state events of a lane are due, counted
-- when claim_state_events locked nothing. That claim cuts its candidates
-- with ROWNUM before FOR UPDATE SKIP LOCKED skips (11g refuses the two in one
-- query block), so rows another dispatcher holds can hide free ones; an
-- empty claim is therefore confirmed here before the dispatcher may call the
-- lane idle (`dispatch --until-idle`). The predicate is the claim's
-- candidate subquery, through the same function-based indexes.
-- binds: :now timestamp (UTC), :lanes number  lanes (1: the whole outbox),
--        :lane number  this lane, 0..:lanes-1
-- returns: n
-- locks: none
SELECT COUNT(*) AS N
FROM KAFKA_SCHD s
WHERE (CASE WHEN s.SENT_AT IS NULL THEN s.EVENT_ID END) IS NOT NULL
  AND (s.NEXT_ATTEMPT_AT IS NULL OR s.NEXT_ATTEMPT_AT <= :now)
  AND MOD(s.FLID, :lanes) = :lane
  AND NOT EXISTS (
      SELECT 1
      FROM KAFKA_SCHD w
      WHERE (CASE WHEN w.SENT_AT IS NULL THEN w.FLID END) = s.FLID
        AND w.NEXT_ATTEMPT_AT > :now)
