-- name: withdraw_request_calls
-- The calls of expired requests that were never made are not made any more
-- (DESIGN §6.2: a call is granted only while it is still wanted): their
-- deadline becomes now, which neither select_open_effect_calls nor
-- grant_effect_calls passes. A call granted already is left as it is.
-- binds: $1 bigint[]  call_id, $2 timestamp  now (UTC),
--        $3 varchar[]  grantable statuses (PENDING, NOT_SENT)
-- returns: call_id of each call withdrawn
-- locks: the withdrawn EFFECT_CALL rows
UPDATE effect_call
SET deadline_at = $2,
    updated_at = $2
WHERE call_id = ANY($1)
  AND status = ANY($3)
RETURNING call_id
