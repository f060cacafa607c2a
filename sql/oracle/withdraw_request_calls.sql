-- name: withdraw_request_calls
-- The call of an expired request that was never made is not made any more
-- (DESIGN §6.2: a call is granted only while it is still wanted): its
-- deadline becomes now, which neither select_open_effect_calls nor
-- grant_effect_calls passes. A call granted already is left as it is. Run
-- once per call (a registration expires at most one live request).
-- binds: :call_id number(19), :now timestamp (UTC),
--        :grantable_1, :grantable_2 varchar2  grantable statuses (PENDING, NOT_SENT)
-- returns: row count 1 when withdrawn
-- locks: the withdrawn EFFECT_CALL row
UPDATE EFFECT_CALL
SET DEADLINE_AT = :now,
    UPDATED_AT = :now
WHERE CALL_ID = :call_id
  AND STATUS IN (:grantable_1, :grantable_2)
