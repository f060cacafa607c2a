-- name: select_bridges
-- Reads the ABTM rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, ordinal, source_seq, abdg, abop, aotm
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    abdg,
    abop,
    aotm
FROM flight_bridge
WHERE flid = ANY ($1)
ORDER BY flid, ordinal
