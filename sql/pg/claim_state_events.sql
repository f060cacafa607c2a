-- name: claim_state_events
-- Claims the oldest pending state events that are due, and with them every
-- other pending event of the same flights, so that the dispatcher can
-- coalesce a flight's rows into one message (its current state). A flight
-- with a row waiting for its retry time is skipped whole: nothing newer of
-- it is sent before that row, which keeps a flight's order across retries.
-- Rows locked by another dispatcher are skipped, never waited for. The
-- second step starts from the head's flights (index KAFKA_SCHD_FLID_PENDING_IX),
-- so a claim costs the same however many rows are pending.
-- binds: $1 timestamp  now (UTC), $2 bigint  the most due rows to start from
-- returns: event_id, flid, state_version, event_kind, created_at, attempts
--          of each claimed row, by flid then event_id
-- The flights in back-off are listed once per claim (pending rows only),
-- not probed per row: cheap while the outbox is drained, and never a scan
-- of the rows already sent.
-- locks: the claimed KAFKA_SCHD rows (FOR UPDATE SKIP LOCKED), until commit
WITH head AS (
    SELECT s.flid
    FROM kafka_schd s
    WHERE s.sent_at IS NULL
      AND (s.next_attempt_at IS NULL OR s.next_attempt_at <= $1)
      AND s.flid <> ALL (ARRAY(
          SELECT w.flid
          FROM kafka_schd w
          WHERE w.sent_at IS NULL
            AND w.next_attempt_at > $1))
    ORDER BY s.event_id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
SELECT k.event_id, k.flid, k.state_version, k.event_kind, k.created_at, k.attempts
FROM (SELECT DISTINCT flid FROM head) AS f
JOIN kafka_schd k ON k.flid = f.flid AND k.sent_at IS NULL
ORDER BY k.flid, k.event_id
FOR UPDATE OF k SKIP LOCKED
