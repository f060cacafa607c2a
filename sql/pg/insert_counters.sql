-- name: insert_counters
-- Inserts the CKDT rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_counters for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 integer[]  ordinal
--   $3 integer[]  source_seq
--   $4 varchar[]  chkc
--   $5 varchar[]  ccls
--   $6 timestamp[]  pcot
--   $7 timestamp[]  pcct
--   $8 timestamp[]  cotm
--   $9 timestamp[]  cctm
--   $10 varchar[]  ctyp
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_counter (
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
