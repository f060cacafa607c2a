-- name: select_counters
-- Reads the CKDT rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, ordinal, source_seq, chkc, ccls, pcot, pcct, cotm, cctm, ctyp
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    chkc,
    ccls,
    pcot,
    pcct,
    cotm,
    cctm,
    ctyp
FROM flight_counter
WHERE flid = ANY ($1)
ORDER BY flid, ordinal
