-- name: select_retired_days
-- The operation days the history clean-up retires (`cleanup.history_days`):
-- days before the first day kept that still hold a flight or a snapshot
-- ledger, ascending. What `flightstate cleanup --dry-run` lists; a day is a
-- few thousand flights, so a year is a few hundred rows at most.
-- binds: $1 date  first operation day kept (days before it)
-- returns: operation_day
-- locks: none
SELECT f.operation_day
FROM flight_schd f
WHERE f.operation_day < $1
GROUP BY f.operation_day
UNION
SELECT g.operation_day
FROM schd_gen g
WHERE g.operation_day < $1
ORDER BY 1
