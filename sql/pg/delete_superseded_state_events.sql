-- name: delete_superseded_state_events
-- `flightstate resync`: settles the state events that were pending when the
-- resync began, oldest first, a batch at a time. They came back with the
-- restored database and announce versions below what the state topic holds;
-- the resync sends every flight's current state at a version above the
-- topic's instead, so they are done without being sent (the outbox holds
-- pending rows only). A row another transaction holds (a dispatcher's pass
-- begun before the resync took the lease) is waited for, never skipped.
-- Walks KAFKA_SCHD_PENDING_IX.
-- binds: $1 bigint  the most rows to settle
-- returns: nothing (the number of rows settled; 0 when none is left)
-- locks: the deleted KAFKA_SCHD rows
DELETE FROM kafka_schd
WHERE event_id IN (
    SELECT p.event_id
    FROM kafka_schd p
    WHERE p.sent_at IS NULL
    ORDER BY p.event_id
    LIMIT $1
    FOR UPDATE)
