-- name: insert_delays
-- Inserts the DELY rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_delays for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 integer[]  ordinal
--   $3 integer[]  source_seq
--   $4 varchar[]  dely_code
--   $5 timestamp[]  dely_strt
--   $6 integer[]  dely_dura
--   $7 varchar[]  dely
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_delay (
    flid,
    ordinal,
    source_seq,
    dely_code,
    dely_strt,
    dely_dura,
    dely
)
SELECT * FROM UNNEST(
    $1::bigint[],
    $2::integer[],
    $3::integer[],
    $4::varchar[],
    $5::timestamp[],
    $6::integer[],
    $7::varchar[]
)
