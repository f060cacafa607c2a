-- name: select_open_effect_calls
-- The calls that still need work, oldest first: granted calls whose outcome
-- is open (to resolve by reading the target back, never to send again), and
-- grantable calls whose deadline has not passed. One branch per status set,
-- each a range of EFFECT_CALL_STATUS_IX: the open calls are found without
-- reading the settled ones, however many a year leaves. 11g has no FETCH
-- FIRST: the ordered rows are cut by ROWNUM outside the ORDER BY.
-- binds: :unresolved_1, :unresolved_2 varchar2  unresolved statuses (DISPATCHED, UNKNOWN),
--        :grantable_1, :grantable_2 varchar2  grantable statuses (PENDING, NOT_SENT),
--        :now timestamp (UTC), :row_limit number  the most rows
-- returns: call_id, idempotency_key, call_kind, target, payload, payload_digest,
--          status, send_token, attempt, deadline_at
-- locks: none
SELECT CALL_ID, IDEMPOTENCY_KEY, CALL_KIND, TARGET, PAYLOAD, PAYLOAD_DIGEST,
       STATUS, SEND_TOKEN, ATTEMPT, DEADLINE_AT
FROM (
    SELECT CALL_ID, IDEMPOTENCY_KEY, CALL_KIND, TARGET, PAYLOAD, PAYLOAD_DIGEST,
           STATUS, SEND_TOKEN, ATTEMPT, DEADLINE_AT
    FROM (
        SELECT CALL_ID, IDEMPOTENCY_KEY, CALL_KIND, TARGET, PAYLOAD, PAYLOAD_DIGEST,
               STATUS, SEND_TOKEN, ATTEMPT, DEADLINE_AT
        FROM EFFECT_CALL
        WHERE STATUS IN (:unresolved_1, :unresolved_2)
        UNION ALL
        SELECT CALL_ID, IDEMPOTENCY_KEY, CALL_KIND, TARGET, PAYLOAD, PAYLOAD_DIGEST,
               STATUS, SEND_TOKEN, ATTEMPT, DEADLINE_AT
        FROM EFFECT_CALL
        WHERE STATUS IN (:grantable_1, :grantable_2)
          AND (DEADLINE_AT IS NULL OR DEADLINE_AT > :now)
    )
    ORDER BY CALL_ID
)
WHERE ROWNUM <= :row_limit
