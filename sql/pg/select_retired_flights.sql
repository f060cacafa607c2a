-- name: select_retired_flights
-- The history clean-up's flights (`cleanup.history_days`): flights of an
-- operation day before the first day kept. A flight belongs to one day, and
-- a later snapshot of another day deletes only flights of its own day, so
-- removing them never changes what a snapshot of a kept day deletes
-- (docs/open-questions.md, "Past operation days"). FLIDs above a cursor,
-- ascending, at most a batch. Reads FLIGHT_SCHD_OPDAY_IX for the days.
-- binds: $1 date  first operation day kept (days before it), $2 bigint  FLID
--        cursor (only FLIDs above it), $3 bigint  how many
-- returns: flid, operation_day, last_message_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT f.flid, f.operation_day, f.last_message_id
FROM flight_schd f
WHERE f.operation_day < $1
  AND f.flid > $2
ORDER BY f.flid
LIMIT $3
