-- name: insert_bridges
-- Inserts the ABTM rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_bridges for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 integer[]  ordinal
--   $3 integer[]  source_seq
--   $4 varchar[]  abdg
--   $5 varchar[]  abop
--   $6 timestamp[]  aotm
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_bridge (
    flid,
    ordinal,
    source_seq,
    abdg,
    abop,
    aotm
)
SELECT * FROM UNNEST(
    $1::bigint[],
    $2::integer[],
    $3::integer[],
    $4::varchar[],
    $5::varchar[],
    $6::timestamp[]
)
