-- name: insert_gates
-- Inserts the GTDT rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_gates for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 integer[]  ordinal
--   $3 integer[]  source_seq
--   $4 varchar[]  gate
--   $5 timestamp[]  pgot
--   $6 timestamp[]  pgct
--   $7 timestamp[]  gotm
--   $8 timestamp[]  gctm
--   $9 varchar[]  gtyp
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_gate (
    flid,
    ordinal,
    source_seq,
    gate,
    pgot,
    pgct,
    gotm,
    gctm,
    gtyp
)
SELECT * FROM UNNEST(
    $1::bigint[],
    $2::integer[],
    $3::integer[],
    $4::varchar[],
    $5::timestamp[],
    $6::timestamp[],
    $7::timestamp[],
    $8::timestamp[],
    $9::varchar[]
)
