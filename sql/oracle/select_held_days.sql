-- name: select_held_days
-- Which operation days the current state holds: its first and last day (by
-- FLIGHT_SCHD_OPDAY_IX, two index ends whatever the history) and how many
-- flights have no operation day yet (Oracle does not index NULL keys: that
-- count reads FLIGHT_SCHD). What `GET /all/flights` and the status say they
-- hold.
-- binds: none
-- returns: first_day, last_day (NULL when no flight has a day), without_day
-- locks: none
SELECT (SELECT MIN(OPERATION_DAY) FROM FLIGHT_SCHD) AS first_day,
       (SELECT MAX(OPERATION_DAY) FROM FLIGHT_SCHD) AS last_day,
       (SELECT COUNT(*) FROM FLIGHT_SCHD WHERE OPERATION_DAY IS NULL) AS without_day
FROM DUAL
