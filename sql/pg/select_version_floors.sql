-- name: select_version_floors
-- The version floors of flights about to be created: the tombstone
-- version of each one deleted before (FLIDs never deleted are absent).
-- binds: $1 bigint[]  flids
-- returns: flid, state_version
-- locks: none
SELECT flid, state_version
FROM flight_version_floor
WHERE flid = ANY ($1)
