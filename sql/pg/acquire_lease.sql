-- name: acquire_lease
-- Takes the pump lease when it is free or has run out. Every acquisition is
-- a takeover and bumps the fencing epoch, even by the previous holder, so
-- that a transaction begun under the old lease is refused at its lock.
-- binds: $1 varchar  holder, $2 timestamp  now (UTC), $3 timestamp  expires_at (UTC)
-- returns: lease_epoch; no row when another pump holds a live lease
-- locks: PIPELINE_LOCK row 1 (waits for a state transaction in progress)
UPDATE pipeline_lock
SET lease_holder = $1,
    lease_epoch = lease_epoch + 1,
    lease_expires_at = $3
WHERE lock_id = 1
  AND (lease_expires_at IS NULL OR lease_expires_at <= $2)
RETURNING lease_epoch
