-- name: select_pipeline_lease
-- Who holds the pump lease, its fencing epoch and when it runs out, for the
-- status page, the metrics and `flightstate status`. Unlike lock_pipeline it
-- takes no lock: a reader never waits for, nor holds up, a state transaction.
-- binds: none
-- returns: lease_holder, lease_epoch, lease_expires_at (UTC)
-- locks: none
SELECT lease_holder, lease_epoch, lease_expires_at
FROM pipeline_lock
WHERE lock_id = 1
