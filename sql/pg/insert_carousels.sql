-- name: insert_carousels
-- Inserts the CLDT rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_carousels for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 integer[]  ordinal
--   $3 integer[]  source_seq
--   $4 varchar[]  belt
--   $5 varchar[]  bcls
--   $6 timestamp[]  pcot
--   $7 timestamp[]  pcct
--   $8 timestamp[]  fbag
--   $9 timestamp[]  lbag
--   $10 varchar[]  btyp
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_carousel (
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
)
SELECT * FROM UNNEST(
    $1::bigint[],
    $2::integer[],
    $3::integer[],
    $4::varchar[],
    $5::varchar[],
    $6::timestamp[],
    $7::timestamp[],
    $8::timestamp[],
    $9::timestamp[],
    $10::varchar[]
)
