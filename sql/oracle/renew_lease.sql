-- name: renew_lease
-- Extends the lease of its holder at its epoch, if it has not run out.
-- binds: :holder varchar2, :epoch number(19), :now timestamp (UTC),
--        :expires_at timestamp (UTC)
-- returns: nothing; row count 1, or 0 when the lease was lost
-- locks: PIPELINE_LOCK row 1 (waits for a state transaction in progress)
UPDATE PIPELINE_LOCK
SET LEASE_EXPIRES_AT = :expires_at
WHERE LOCK_ID = 1
  AND LEASE_HOLDER = :holder
  AND LEASE_EPOCH = :epoch
  AND LEASE_EXPIRES_AT > :now
