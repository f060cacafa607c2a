-- name: upsert_version_floors
-- Records the tombstone versions of deleted flights, in the transaction that
-- deletes them: a flight created again under the same FLID continues above
-- its tombstone. A floor never goes down.
-- binds: $1 bigint[]  flid, $2 bigint[]  tombstone state_version (same order),
--        $3 timestamp  now (UTC)
-- returns: nothing
-- locks: the inserted or updated FLIGHT_VERSION_FLOOR rows
INSERT INTO flight_version_floor (flid, state_version, deleted_at)
SELECT f.flid, f.state_version, $3
FROM unnest($1::bigint[], $2::bigint[]) AS f (flid, state_version)
ON CONFLICT (flid) DO UPDATE
SET state_version = greatest(flight_version_floor.state_version, excluded.state_version),
    deleted_at = excluded.deleted_at
