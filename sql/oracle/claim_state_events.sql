-- name: claim_state_events
-- Claims the oldest pending state events that are due, and with them every
-- other pending event of the same flights, so that the dispatcher can
-- coalesce a flight's rows into one message (its current state). A flight
-- with a row waiting for its retry time is skipped whole: nothing newer of
-- it is sent before that row, which keeps a flight's order across retries.
-- Rows locked by another dispatcher are skipped, never waited for. 11g has
-- no FETCH FIRST and refuses FOR UPDATE next to ROWNUM over an ordered view:
-- the head flights are chosen in a subquery (ROWNUM over the ordered due
-- rows) and their rows locked outside it, so a claim may return fewer rows
-- than asked; the dispatcher takes short batches as they come. The CASE
-- expressions are those of KAFKA_SCHD_PENDING_IX and
-- KAFKA_SCHD_FLID_PENDING_IX (function-based: 11g has no partial index).
-- The back-off check means what PostgreSQL's does (a flight with a pending
-- row whose NEXT_ATTEMPT_AT is later than :now gives no head row; FLID is NOT
-- NULL here); it probes KAFKA_SCHD_FLID_PENDING_IX, which holds pending rows
-- only, so neither step reads the rows already sent.
-- One dispatcher at a time per flight: count_flight_pending_events then
-- counts the pending rows of each claimed flight, in the same transaction
-- (the same snapshot under SERIALIZABLE); a flight of which this claim
-- locked fewer rows has rows in another dispatcher's pass, and the
-- repository drops it from the claim (its rows are left alone), so a newer
-- row of a flight never goes out while an older one is still in flight
-- elsewhere. The count is a statement of its own, not a scalar subquery
-- here: 11g refuses aggregates and analytic functions beside FOR UPDATE, and
-- whether it takes them in a scalar subquery beside FOR UPDATE SKIP LOCKED
-- has not been shown on an 11.2 server.
-- Lanes: a dispatcher with several lanes claims on each lane only the
-- flights whose FLID modulo :lanes is :lane, so every row of a flight goes
-- through one lane (one producer, in order); lanes never contend for rows.
-- Every FLID falls in a lane: FLIDs are never negative (1 to 12 digits).
-- binds: :now timestamp (UTC), :row_limit number  the most due rows to start from,
--        :lanes number  lanes (1: the whole outbox), :lane number  this lane, 0..:lanes-1
-- returns: event_id, flid, state_version, event_kind, created_at, attempts,
--          message_id of each claimed row, by flid then event_id
-- locks: the claimed KAFKA_SCHD rows (FOR UPDATE SKIP LOCKED), until commit
SELECT k.EVENT_ID, k.FLID, k.STATE_VERSION, k.EVENT_KIND, k.CREATED_AT, k.ATTEMPTS,
    k.MESSAGE_ID
FROM KAFKA_SCHD k
WHERE (CASE WHEN k.SENT_AT IS NULL THEN k.FLID END) IN (
    SELECT head.FLID
    FROM (
        SELECT s.FLID
        FROM KAFKA_SCHD s
        WHERE (CASE WHEN s.SENT_AT IS NULL THEN s.EVENT_ID END) IS NOT NULL
          AND (s.NEXT_ATTEMPT_AT IS NULL OR s.NEXT_ATTEMPT_AT <= :now)
          AND MOD(s.FLID, :lanes) = :lane
          AND NOT EXISTS (
              SELECT 1
              FROM KAFKA_SCHD w
              WHERE (CASE WHEN w.SENT_AT IS NULL THEN w.FLID END) = s.FLID
                AND w.NEXT_ATTEMPT_AT > :now)
        ORDER BY (CASE WHEN s.SENT_AT IS NULL THEN s.EVENT_ID END)
    ) head
    WHERE ROWNUM <= :row_limit)
ORDER BY k.FLID, k.EVENT_ID
FOR UPDATE SKIP LOCKED
