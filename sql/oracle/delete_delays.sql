-- name: delete_delays
-- Deletes every DELY row of the given flights: the first half of the
-- group delete-insert, and the clean-up of deleted flights. One batch entry
-- per flight (array DML: one round trip per batch, each entry a primary-key
-- range scan; no IN list, so no 1000-item limit).
-- binds (per batch entry): :flid number(19)
-- returns: nothing
-- locks: the deleted rows
DELETE FROM FLIGHT_DELAY
WHERE FLID = :flid
