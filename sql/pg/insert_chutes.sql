-- name: insert_chutes
-- Inserts the CHDT rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_chutes for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 integer[]  ordinal
--   $3 integer[]  source_seq
--   $4 varchar[]  chut
--   $5 varchar[]  ccls
--   $6 timestamp[]  pcbt
--   $7 timestamp[]  pcet
--   $8 timestamp[]  cbtm
--   $9 timestamp[]  cetm
--   $10 varchar[]  ctyp
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_chute (
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
