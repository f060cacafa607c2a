-- name: select_chocks
-- Reads the CHOT rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, ordinal, source_seq, chtm, chid, chst
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    chtm,
    chid,
    chst
FROM flight_chock
WHERE flid = ANY ($1)
ORDER BY flid, ordinal
