-- name: claim_change_notices
-- Claims the oldest pending change notifications that are due. A flight
-- with a notification waiting for its retry time is skipped whole, so that
-- a flight's notifications stay in order across retries. Rows locked by
-- another dispatcher are skipped, never waited for. 11g has no FETCH FIRST
-- and refuses FOR UPDATE next to ROWNUM over an ordered view: the ordered,
-- ROWNUM-cut candidates are chosen in a subquery and locked outside it, so a
-- claim may return fewer rows than asked (another dispatcher holds some);
-- the dispatcher takes short batches as they come. The CASE expressions are
-- those of KAFKA_MSG_PENDING_IX and KAFKA_MSG_FLID_PENDING_IX (function-based
-- indexes: 11g has no partial index), so that the indexes serve them.
-- The back-off check means what PostgreSQL's does: a flight with a pending
-- row whose NEXT_ATTEMPT_AT is later than :now is skipped whole, and a notice
-- without a FLID is never skipped (a NULL FLID equals nothing, so NOT EXISTS
-- holds). It probes KAFKA_MSG_FLID_PENDING_IX, which holds pending rows only:
-- like PostgreSQL's list, it never reads the rows already sent.
-- Lanes: on each lane only the notices of flights whose FLID modulo :lanes
-- is :lane (a notice without a flight counts as FLID 0), so a flight's
-- notices go through one lane, in order.
-- binds: :now timestamp (UTC), :row_limit number  the most rows to claim,
--        :lanes number  lanes (1: the whole outbox), :lane number  this lane, 0..:lanes-1
-- One dispatcher at a time per flight: count_earlier_change_notices then
-- counts, for each claimed notice of a flight, the pending notices of the
-- same flight before it, in the same transaction (the same snapshot under
-- SERIALIZABLE); the repository keeps a flight's notices only from the first
-- on whose earlier ones are all in this claim, so a notice never overtakes
-- an earlier one of its flight that another dispatcher's pass holds. A
-- statement of its own, not a scalar subquery here: see claim_state_events.
-- returns: event_id, flid, change_kind, payload, message_id, created_at,
--          attempts of each claimed row, by event_id
-- locks: the claimed KAFKA_MSG rows (FOR UPDATE SKIP LOCKED), until commit
SELECT m.EVENT_ID, m.FLID, m.CHANGE_KIND, m.PAYLOAD, m.MESSAGE_ID, m.CREATED_AT, m.ATTEMPTS
FROM KAFKA_MSG m
WHERE m.EVENT_ID IN (
    SELECT due.EVENT_ID
    FROM (
        SELECT c.EVENT_ID
        FROM KAFKA_MSG c
        WHERE (CASE WHEN c.SENT_AT IS NULL THEN c.EVENT_ID END) IS NOT NULL
          AND (c.NEXT_ATTEMPT_AT IS NULL OR c.NEXT_ATTEMPT_AT <= :now)
          AND MOD(NVL(c.FLID, 0), :lanes) = :lane
          AND NOT EXISTS (
              SELECT 1
              FROM KAFKA_MSG w
              WHERE (CASE WHEN w.SENT_AT IS NULL THEN w.FLID END) = c.FLID
                AND w.NEXT_ATTEMPT_AT > :now)
        ORDER BY (CASE WHEN c.SENT_AT IS NULL THEN c.EVENT_ID END)
    ) due
    WHERE ROWNUM <= :row_limit)
  AND m.SENT_AT IS NULL
ORDER BY m.EVENT_ID
FOR UPDATE SKIP LOCKED
