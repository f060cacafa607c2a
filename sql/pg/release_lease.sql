-- name: release_lease
-- Lets the lease run out now, if it is still the holder's at its epoch, so
-- that another pump can take over without waiting for the expiry. The holder
-- stays recorded, for operators.
-- binds: $1 varchar  holder, $2 bigint  epoch, $3 timestamp  now (UTC)
-- returns: lease_epoch; no row when the lease was not this holder's any more
-- locks: PIPELINE_LOCK row 1
UPDATE pipeline_lock
SET lease_expires_at = $3
WHERE lock_id = 1
  AND lease_holder = $1
  AND lease_epoch = $2
RETURNING lease_epoch
