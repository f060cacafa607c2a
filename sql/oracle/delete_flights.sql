-- name: delete_flights
-- Deletes the main row of a flight by key, one batch entry per flight (array
-- DML): the flights lock_flights or lock_flights_of_day read and locked in
-- the same transaction, so exactly those rows go. The caller deletes their
-- detail rows in the same transaction and registers their tombstones with
-- the versions the lock read returned (PostgreSQL's DELETE … RETURNING;
-- Oracle binds no collection beside RETURNING, docs/oracle.md).
-- binds: :flid number(19)
-- returns: nothing
-- locks: the deleted FLIGHT_SCHD row
DELETE FROM FLIGHT_SCHD
WHERE FLID = :flid
