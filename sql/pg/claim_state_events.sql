-- name: claim_state_events
-- Claims the oldest pending state events that are due, and with them every
-- other pending event of the same flights, so that the dispatcher can
-- coalesce a flight's rows into one message (its current state). A flight
-- with a row waiting for its retry time is skipped whole: nothing newer of
-- it is sent before that row, which keeps a flight's order across retries.
-- Rows locked by another dispatcher are skipped, never waited for. The
-- second step starts from the head's flights (index KAFKA_SCHD_FLID_PENDING_IX),
-- so a claim costs the same however many rows are pending.
-- One dispatcher at a time per flight: flight_pending is how many pending
-- rows the flight has in the claim's snapshot; a flight of which this claim
-- locked fewer rows has rows in another dispatcher's pass, and the
-- repository drops it from the claim (its rows are left alone), so a newer
-- row of a flight never goes out while an older one is still in flight
-- elsewhere.
-- Lanes: a dispatcher with several lanes claims on each lane only the
-- flights whose FLID modulo $3 is $4, so every row of a flight goes through
-- one lane (one producer, in order); lanes never contend for rows, and a
-- lane's head is its own oldest rows, whatever the other lanes left pending.
-- Every FLID falls in a lane: FLIDs are never negative (1 to 12 digits).
-- The lane test is written as a CASE: PostgreSQL estimates a bare
-- `mod(flid, $3) = $4` at 0.5 % of the rows and would then sort every
-- pending row instead of walking KAFKA_SCHD_PENDING_IX in order (~40 ms per
-- claim at 100,000 pending rows against ~4 ms); a CASE it estimates at one
-- half.
-- binds: $1 timestamp  now (UTC), $2 bigint  the most due rows to start from,
--        $3 bigint  lanes (1: the whole outbox), $4 bigint  this lane, 0..$3-1
-- returns: event_id, flid, state_version, event_kind, created_at, attempts,
--          message_id of each claimed row, and flight_pending (the pending
--          rows of its flight), by flid then event_id
-- The flights in back-off are listed once per claim from
-- KAFKA_SCHD_BACKOFF_IX, which holds the rows in back-off only.
-- locks: the claimed KAFKA_SCHD rows (FOR UPDATE SKIP LOCKED), until commit
WITH head AS (
    SELECT s.flid
    FROM kafka_schd s
    WHERE s.sent_at IS NULL
      AND (s.next_attempt_at IS NULL OR s.next_attempt_at <= $1)
      AND CASE WHEN mod(s.flid, $3) = $4 THEN true ELSE false END
      AND s.flid <> ALL (ARRAY(
          SELECT w.flid
          FROM kafka_schd w
          WHERE w.sent_at IS NULL
            AND w.next_attempt_at > $1))
    ORDER BY s.event_id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
SELECT k.event_id, k.flid, k.state_version, k.event_kind, k.created_at, k.attempts,
       k.message_id, f.flight_pending
FROM (SELECT h.flid,
             (SELECT count(*)
              FROM kafka_schd p
              WHERE p.flid = h.flid
                AND p.sent_at IS NULL) AS flight_pending
      FROM (SELECT DISTINCT flid FROM head) AS h) AS f
JOIN kafka_schd k ON k.flid = f.flid AND k.sent_at IS NULL
ORDER BY k.flid, k.event_id
FOR UPDATE OF k SKIP LOCKED
