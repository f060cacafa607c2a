-- name: claim_change_notices
-- Claims the oldest pending change notifications that are due. A flight
-- with a notification waiting for its retry time is skipped whole, so that
-- a flight's notifications stay in order across retries. Rows locked by
-- another dispatcher are skipped, never waited for.
-- Lanes: on each lane only the notices of flights whose FLID modulo $3 is
-- $4 (a notice without a flight counts as FLID 0), so a flight's notices
-- go through one lane, in order.
-- binds: $1 timestamp  now (UTC), $2 bigint  the most rows to claim,
--        $3 bigint  lanes (1: the whole outbox), $4 bigint  this lane, 0..$3-1
-- returns: event_id, flid, change_kind, payload, message_id, created_at,
--          attempts of each claimed row, by event_id
-- How it reads: the due window is the oldest $2 * $3 due notices of all
-- lanes, walked in KAFKA_MSG_PENDING_IX order (a lane filter inside that
-- scan would be misestimated and the planner would sort every pending
-- row); the lane's notices among them are locked, so a lane gets about $2.
-- The flights in back-off are listed once per claim from KAFKA_MSG_BACKOFF_IX,
-- which holds the notices in back-off only.
-- locks: the claimed KAFKA_MSG rows (FOR UPDATE SKIP LOCKED), until commit
SELECT m.event_id, m.flid, m.change_kind, m.payload, m.message_id, m.created_at, m.attempts
FROM kafka_msg m
WHERE m.event_id IN (
    SELECT due.event_id
    FROM (
        SELECT c.event_id, c.flid
        FROM kafka_msg c
        WHERE c.sent_at IS NULL
          AND (c.next_attempt_at IS NULL OR c.next_attempt_at <= $1)
          AND (c.flid IS NULL OR c.flid <> ALL (ARRAY(
              SELECT w.flid
              FROM kafka_msg w
              WHERE w.sent_at IS NULL
                AND w.flid IS NOT NULL
                AND w.next_attempt_at > $1)))
        ORDER BY c.event_id
        LIMIT $2 * $3
    ) AS due
    WHERE mod(coalesce(due.flid, 0), $3) = $4)
  AND m.sent_at IS NULL
ORDER BY m.event_id
FOR UPDATE SKIP LOCKED
