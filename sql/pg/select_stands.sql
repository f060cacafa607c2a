-- name: select_stands
-- Reads the PSDT, PSHT, TIPT rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, ordinal, source_seq, psst, stst, stet, pshn, pstm, psid, trtm
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    psst,
    stst,
    stet,
    pshn,
    pstm,
    psid,
    trtm
FROM flight_stand
WHERE flid = ANY ($1)
ORDER BY flid, ordinal
