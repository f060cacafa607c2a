-- name: grant_effect_calls
-- Grants one call (DESIGN §6.2): if it is still grantable at the attempt the
-- worker saw and within its deadline, it becomes DISPATCHED with a fresh
-- one-time send token (SYS_GUID, 32 hex digits), attempt + 1, under the
-- worker's lease epoch. The attempt compare-and-set means a repeat within the
-- same attempt grants nothing. Run once per call of the worker's batch
-- (bounded by pump.effect_batch): a batch (array DML) cannot return values,
-- and per-entry row counts need 12.1.
-- binds: :call_id number(19), :seen_attempt number(10), :dispatched varchar2
--        DISPATCHED, :lease_epoch number(19), :now timestamp (UTC),
--        :grantable_1, :grantable_2 varchar2  grantable statuses (PENDING, NOT_SENT);
--        out :send_token varchar2(64), out :attempt number(10)
-- nonempty: :dispatched  a CallStatus code (DISPATCHED)
-- returns: :send_token, :attempt (RETURNING INTO); row count 0 when not granted
-- locks: the granted EFFECT_CALL row
UPDATE EFFECT_CALL
SET STATUS = :dispatched,
    SEND_TOKEN = LOWER(RAWTOHEX(SYS_GUID())),
    ATTEMPT = ATTEMPT + 1,
    LEASE_EPOCH = :lease_epoch,
    DISPATCHED_AT = :now,
    UPDATED_AT = :now
WHERE CALL_ID = :call_id
  AND ATTEMPT = :seen_attempt
  AND STATUS IN (:grantable_1, :grantable_2)
  AND (DEADLINE_AT IS NULL OR DEADLINE_AT > :now)
RETURNING SEND_TOKEN, ATTEMPT INTO :send_token, :attempt
