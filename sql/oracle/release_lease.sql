-- name: release_lease
-- Lets the lease run out now, if it is still the holder's at its epoch, so
-- that another pump can take over without waiting for the expiry. The holder
-- stays recorded, for operators.
-- binds: :holder varchar2, :epoch number(19), :now timestamp (UTC)
-- returns: nothing; row count 1, or 0 when the lease was not this holder's any more
-- locks: PIPELINE_LOCK row 1
UPDATE PIPELINE_LOCK
SET LEASE_EXPIRES_AT = :now
WHERE LOCK_ID = 1
  AND LEASE_HOLDER = :holder
  AND LEASE_EPOCH = :epoch
