-- name: select_retired_days
-- The operation days the history clean-up retires (`cleanup.history_days`):
-- days before the first day kept that still hold a flight or a snapshot
-- ledger, ascending. What `flightstate cleanup --dry-run` lists; a day is a
-- few thousand flights, so a year is a few hundred rows at most.
-- binds: :first_kept date  first operation day kept (days before it)
-- returns: operation_day
-- locks: none
SELECT f.OPERATION_DAY AS operation_day
FROM FLIGHT_SCHD f
WHERE f.OPERATION_DAY < :first_kept
GROUP BY f.OPERATION_DAY
UNION
SELECT g.OPERATION_DAY AS operation_day
FROM SCHD_GEN g
WHERE g.OPERATION_DAY < :first_kept
ORDER BY 1
