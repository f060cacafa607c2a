-- name: insert_chocks
-- Inserts the CHOT rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_chocks for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 integer[]  ordinal
--   $3 integer[]  source_seq
--   $4 timestamp[]  chtm
--   $5 varchar[]  chid
--   $6 varchar[]  chst
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_chock (
    flid,
    ordinal,
    source_seq,
    chtm,
    chid,
    chst
)
SELECT * FROM UNNEST(
    $1::bigint[],
    $2::integer[],
    $3::integer[],
    $4::timestamp[],
    $5::varchar[],
    $6::varchar[]
)
