-- name: renew_lease
-- Extends the lease of its holder at its epoch, if it has not run out.
-- binds: $1 varchar  holder, $2 bigint  epoch, $3 timestamp  now (UTC),
--        $4 timestamp  expires_at (UTC)
-- returns: lease_epoch; no row when the lease was lost
-- locks: PIPELINE_LOCK row 1 (waits for a state transaction in progress)
UPDATE pipeline_lock
SET lease_expires_at = $4
WHERE lock_id = 1
  AND lease_holder = $1
  AND lease_epoch = $2
  AND lease_expires_at > $3
RETURNING lease_epoch
