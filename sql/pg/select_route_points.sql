-- name: select_route_points
-- Reads the ROUT, ERUT rows of many flights at once, in input order.
-- binds: $1 bigint[]  flids
-- returns: flid, route_kind, ordinal, source_seq, apcd, scat, scdt
-- locks: none
SELECT
    flid,
    route_kind,
    ordinal,
    source_seq,
    apcd,
    scat,
    scdt
FROM flight_route_point
WHERE flid = ANY ($1)
ORDER BY flid, route_kind, ordinal
