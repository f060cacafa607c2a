-- name: claim_change_notices
-- Claims the oldest pending change notifications that are due. A flight
-- with a notification waiting for its retry time is skipped whole, so that
-- a flight's notifications stay in order across retries. Rows locked by
-- another dispatcher are skipped, never waited for.
-- Lanes: on each lane only the notices of flights whose FLID modulo $3 is
-- $4 (a notice without a flight counts as FLID 0), so a flight's notices
-- go through one lane, in order. The lane test is a CASE for the planner's
-- sake, as in claim_state_events.
-- binds: $1 timestamp  now (UTC), $2 bigint  the most rows to claim,
--        $3 bigint  lanes (1: the whole outbox), $4 bigint  this lane, 0..$3-1
-- One dispatcher at a time per flight: earlier_pending is how many pending
-- notices of the same flight come before the row (in the claim's snapshot);
-- the repository keeps a flight's notices only from the first on whose
-- earlier ones are all in this claim, so a notice never overtakes an earlier
-- one of its flight that another dispatcher's pass holds.
-- returns: event_id, flid, change_kind, payload, message_id, created_at,
--          attempts of each claimed row, and earlier_pending, by event_id
-- The flights in back-off are listed once per claim from
-- KAFKA_MSG_BACKOFF_IX, which holds the notices in back-off only.
-- locks: the claimed KAFKA_MSG rows (FOR UPDATE SKIP LOCKED), until commit
SELECT m.event_id, m.flid, m.change_kind, m.payload, m.message_id, m.created_at, m.attempts,
       (SELECT count(*)
        FROM kafka_msg e
        WHERE e.flid = m.flid
          AND e.sent_at IS NULL
          AND e.event_id < m.event_id) AS earlier_pending
FROM kafka_msg m
WHERE m.sent_at IS NULL
  AND (m.next_attempt_at IS NULL OR m.next_attempt_at <= $1)
  AND CASE WHEN mod(coalesce(m.flid, 0), $3) = $4 THEN true ELSE false END
  AND (m.flid IS NULL OR m.flid <> ALL (ARRAY(
      SELECT w.flid
      FROM kafka_msg w
      WHERE w.sent_at IS NULL
        AND w.flid IS NOT NULL
        AND w.next_attempt_at > $1)))
ORDER BY m.event_id
LIMIT $2
FOR UPDATE SKIP LOCKED
