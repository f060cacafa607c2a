-- name: lock_pipeline
-- Takes the one PIPELINE_LOCK row for the rest of the transaction. Every
-- state transaction starts here, so state writers are serialised, and the
-- lease epoch read under the lock tells a pump whether it may still commit.
-- binds: none
-- returns: lease_holder, lease_epoch, lease_expires_at
-- locks: PIPELINE_LOCK row 1 (FOR UPDATE, until commit or rollback)
SELECT LEASE_HOLDER, LEASE_EPOCH, LEASE_EXPIRES_AT
FROM PIPELINE_LOCK
WHERE LOCK_ID = 1
FOR UPDATE
