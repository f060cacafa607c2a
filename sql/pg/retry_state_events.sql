-- name: retry_state_events
-- Keeps claimed state events whose delivery failed or is uncertain pending,
-- with the error and the time of the next try: capped exponential back-off,
-- initial * 2^attempts seconds, at most max seconds.
-- binds: $1 bigint[]  event_id, $2 text[]  error (same order),
--        $3 timestamp  now (UTC), $4 float8  initial back-off in seconds,
--        $5 float8  longest back-off in seconds
-- returns: nothing
-- locks: the updated KAFKA_SCHD rows (already claimed by this transaction)
UPDATE kafka_schd AS k
SET attempts = k.attempts + 1,
    last_error = left(f.error, 2000),
    next_attempt_at = $3 + make_interval(
        secs => least($5::float8, $4::float8 * power(2::float8, least(k.attempts, 30))))
FROM unnest($1::bigint[], $2::text[]) AS f (event_id, error)
WHERE k.event_id = f.event_id
  AND k.sent_at IS NULL
