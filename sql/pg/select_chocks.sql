-- name: select_chocks
-- Reads the CHOT rows of many flights at once, in input order.
-- The FLIDs are joined as a list (one index probe each) rather than
-- tested with `flid = ANY ($1)`: for the custom plans of a prepared
-- statement's first executions PostgreSQL costed that test at a sequential
-- scan of the whole table (~12 ms for 1,000 flights against ~2 ms).
-- binds: $1 bigint[]  flids, each at most once
-- returns: flid, ordinal, source_seq, chtm, chid, chst
-- locks: none
SELECT
    flid,
    ordinal,
    source_seq,
    chtm,
    chid,
    chst
FROM unnest($1::bigint[]) AS wanted (flid)
JOIN flight_chock USING (flid)
ORDER BY flid, ordinal
