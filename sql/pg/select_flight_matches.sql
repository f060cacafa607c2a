-- name: select_flight_matches
-- The flights of a flight number on a few operation days, for the status
-- page's search: the number compared upper-cased and without spaces (as
-- people type it, `ca 1234`), the days a short range (the station's today
-- and its neighbours, or one day asked for). Uses FLIGHT_SCHD_OPDAY_IX; the
-- rows read are the range's flights, whatever the number. The blank and
-- the empty text are bound, not quoted (the house's no-literal rule).
-- binds: $1 text  flight number, upper-cased, no spaces; $2 date  first
--        operation day; $3 date  last operation day; $4 bigint  at most
--        this many rows; $5 text  a single space; $6 text  the empty text
-- returns: flid, flno, mvin, operation_day, sodt, state_version, by
--          operation day, scheduled time and FLID
-- locks: none
SELECT flid,
       flno,
       mvin,
       operation_day,
       sodt,
       state_version
FROM flight_schd
WHERE operation_day BETWEEN $2 AND $3
  AND replace(upper(flno), $5, $6) = $1
ORDER BY operation_day, sodt, flid
LIMIT $4
