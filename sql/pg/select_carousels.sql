-- name: select_carousels
-- Reads the CLDT rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, ordinal, source_seq, belt, bcls, pcot, pcct, fbag, lbag, btyp
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    belt,
    bcls,
    pcot,
    pcct,
    fbag,
    lbag,
    btyp
FROM flight_carousel
WHERE flid = ANY ($1)
ORDER BY flid, ordinal
