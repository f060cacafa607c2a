-- name: acquire_lease
-- Takes the pump lease when it is free or has run out. Every acquisition is
-- a takeover and bumps the fencing epoch, even by the previous holder, so
-- that a transaction begun under the old lease is refused at its lock.
-- binds: :holder varchar2, :now timestamp (UTC), :expires_at timestamp (UTC);
--        out :lease_epoch number(19)
-- returns: :lease_epoch (RETURNING INTO); no row (row count 0) when another
--          pump holds a live lease
-- locks: PIPELINE_LOCK row 1 (waits for a state transaction in progress)
UPDATE PIPELINE_LOCK
SET LEASE_HOLDER = :holder,
    LEASE_EPOCH = LEASE_EPOCH + 1,
    LEASE_EXPIRES_AT = :expires_at
WHERE LOCK_ID = 1
  AND (LEASE_EXPIRES_AT IS NULL OR LEASE_EXPIRES_AT <= :now)
RETURNING LEASE_EPOCH INTO :lease_epoch
