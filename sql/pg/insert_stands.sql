-- name: insert_stands
-- Inserts the PSDT, PSHT, TIPT rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_stands for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 integer[]  ordinal
--   $3 integer[]  source_seq
--   $4 varchar[]  psst
--   $5 timestamp[]  stst
--   $6 timestamp[]  stet
--   $7 integer[]  pshn
--   $8 timestamp[]  pstm
--   $9 varchar[]  psid
--   $10 timestamp[]  trtm
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_stand (
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
)
SELECT * FROM UNNEST(
    $1::bigint[],
    $2::integer[],
    $3::integer[],
    $4::varchar[],
    $5::timestamp[],
    $6::timestamp[],
    $7::integer[],
    $8::timestamp[],
    $9::varchar[],
    $10::timestamp[]
)
