-- name: select_held_days
-- Which operation days the current state holds: its first and last day (by
-- FLIGHT_SCHD_OPDAY_IX, two index ends whatever the history) and how many
-- flights have no operation day yet (the index holds NULL keys too). What
-- `GET /all/flights` and the status say they hold.
-- binds: none
-- returns: first_day, last_day (NULL when no flight has a day), without_day
-- locks: none
SELECT (SELECT MIN(operation_day) FROM flight_schd) AS first_day,
       (SELECT MAX(operation_day) FROM flight_schd) AS last_day,
       (SELECT COUNT(*) FROM flight_schd WHERE operation_day IS NULL) AS without_day
