-- name: insert_route_points
-- Inserts the ROUT, ERUT rows of many flights in one statement: one array per
-- column, rows matched by position. Always follows delete_route_points for the
-- same FLIDs (group delete-insert: a collection is replaced as a whole).
-- binds:
--   $1 bigint[]  flid
--   $2 varchar[]  route_kind
--   $3 integer[]  ordinal
--   $4 integer[]  source_seq
--   $5 varchar[]  apcd
--   $6 timestamp[]  scat
--   $7 timestamp[]  scdt
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO flight_route_point (
    flid,
    route_kind,
    ordinal,
    source_seq,
    apcd,
    scat,
    scdt
)
SELECT * FROM UNNEST(
    $1::bigint[],
    $2::varchar[],
    $3::integer[],
    $4::integer[],
    $5::varchar[],
    $6::timestamp[],
    $7::timestamp[]
)
