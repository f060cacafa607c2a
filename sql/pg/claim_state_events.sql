-- name: claim_state_events
-- Claims the oldest pending state events that are due, and with them every
-- other pending event of the same flights, so that the dispatcher can
-- coalesce a flight's rows into one message (its current state). A flight
-- with a row waiting for its retry time is skipped whole: nothing newer of
-- it is sent before that row, which keeps a flight's order across retries.
-- Rows locked by another dispatcher are skipped, never waited for.
-- binds: $1 timestamp  now (UTC), $2 bigint  the most due rows to start from
-- returns: event_id, flid, state_version, event_kind, created_at, attempts
--          of each claimed row, by flid then event_id
-- locks: the claimed KAFKA_SCHD rows (FOR UPDATE SKIP LOCKED), until commit
WITH head AS (
    SELECT s.flid
    FROM kafka_schd s
    WHERE s.sent_at IS NULL
      AND (s.next_attempt_at IS NULL OR s.next_attempt_at <= $1)
      AND NOT EXISTS (
          SELECT 1
          FROM kafka_schd w
          WHERE w.flid = s.flid
            AND w.sent_at IS NULL
            AND w.next_attempt_at > $1)
    ORDER BY s.event_id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
SELECT k.event_id, k.flid, k.state_version, k.event_kind, k.created_at, k.attempts
FROM kafka_schd k
WHERE k.sent_at IS NULL
  AND k.flid IN (SELECT DISTINCT flid FROM head)
ORDER BY k.flid, k.event_id
FOR UPDATE SKIP LOCKED
