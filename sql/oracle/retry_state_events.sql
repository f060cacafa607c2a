-- name: retry_state_events
-- Keeps claimed state events whose delivery failed or is uncertain pending,
-- with the error and the time of the next try: capped exponential back-off,
-- initial * 2^attempts seconds, at most max seconds. One batch entry per
-- event (array DML). The error is cut to 2000 characters here and, by the
-- repository, to 4000 bytes (the most a VARCHAR2 holds in 11g).
-- binds: :now timestamp (UTC), :initial_secs number, :max_secs number;
--        per batch entry :event_id number(19), :error varchar2
-- returns: nothing
-- locks: the updated KAFKA_SCHD rows (already claimed by this transaction)
UPDATE KAFKA_SCHD
SET ATTEMPTS = ATTEMPTS + 1,
    LAST_ERROR = SUBSTR(:error, 1, 2000),
    NEXT_ATTEMPT_AT = :now + NUMTODSINTERVAL(
        LEAST(:max_secs, :initial_secs * POWER(2, LEAST(ATTEMPTS, 30))), 'SECOND')
WHERE EVENT_ID = :event_id
  AND SENT_AT IS NULL
