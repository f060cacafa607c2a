-- name: select_gates
-- Reads the GTDT rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, ordinal, source_seq, gate, pgot, pgct, gotm, gctm, gtyp
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    gate,
    pgot,
    pgct,
    gotm,
    gctm,
    gtyp
FROM flight_gate
WHERE flid = ANY ($1)
ORDER BY flid, ordinal
