-- name: select_chutes
-- Reads the CHDT rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, ordinal, source_seq, chut, ccls, pcbt, pcet, cbtm, cetm, ctyp
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    chut,
    ccls,
    pcbt,
    pcet,
    cbtm,
    cetm,
    ctyp
FROM flight_chute
WHERE flid = ANY ($1)
ORDER BY flid, ordinal
