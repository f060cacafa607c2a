-- name: select_flight_matches
-- The flights of a flight number on a few operation days, for the status
-- page's search: the number compared upper-cased and without spaces (as
-- people type it, `ca 1234`), the days a short range (the station's today
-- and its neighbours, or one day asked for). Uses FLIGHT_SCHD_OPDAY_IX; the
-- rows read are the range's flights, whatever the number. ROWNUM, not
-- FETCH FIRST (Oracle 11g). The blank is bound, not quoted (the house's
-- no-literal rule); REPLACE with two arguments removes it.
-- binds: :flight_number VARCHAR2  upper-cased, no spaces; :blank VARCHAR2
--        a single space;
--        :first_day DATE  first operation day; :last_day DATE  last
--        operation day; :how_many NUMBER  at most this many rows
-- returns: FLID, FLNO, MVIN, OPERATION_DAY, SODT, STATE_VERSION, by
--          operation day, scheduled time and FLID
-- locks: none
SELECT FLID,
       FLNO,
       MVIN,
       OPERATION_DAY,
       SODT,
       STATE_VERSION
FROM (
    SELECT FLID,
           FLNO,
           MVIN,
           OPERATION_DAY,
           SODT,
           STATE_VERSION
    FROM FLIGHT_SCHD
    WHERE OPERATION_DAY BETWEEN :first_day AND :last_day
      AND REPLACE(UPPER(FLNO), :blank) = :flight_number
    ORDER BY OPERATION_DAY, SODT, FLID
)
WHERE ROWNUM <= :how_many
