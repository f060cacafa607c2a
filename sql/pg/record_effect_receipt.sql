-- name: record_effect_receipt
-- Stores the technical outcome of a grant (DESIGN §6.3): only while that
-- grant is the current one (same send token) and its outcome is still open,
-- so an old token never overwrites the receipt of a newer grant.
-- binds: $1 bigint  call_id, $2 varchar  send_token, $3 varchar  status,
--        $4 varchar  remote_ref, $5 timestamp  now (UTC),
--        $6 varchar[]  open statuses (DISPATCHED, UNKNOWN)
-- returns: call_id; no row when the receipt was not stored
-- locks: the EFFECT_CALL row
UPDATE effect_call
SET status = $3,
    remote_ref = $4,
    receipt_at = $5,
    updated_at = $5
WHERE call_id = $1
  AND send_token = $2
  AND status = ANY($6)
RETURNING call_id
