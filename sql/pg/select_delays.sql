-- name: select_delays
-- Reads the DELY rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, ordinal, source_seq, dely_code, dely_strt, dely_dura, dely
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    dely_code,
    dely_strt,
    dely_dura,
    dely
FROM flight_delay
WHERE flid = ANY ($1)
ORDER BY flid, ordinal
