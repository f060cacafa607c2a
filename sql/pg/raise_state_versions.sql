-- name: raise_state_versions
-- `flightstate resync`: raises flights' STATE_VERSION above what the state
-- topic already holds of them (after a restore of the state database), with
-- the state document at the new version, so that consumers keeping the
-- highest version per FLID take the flight's next messages. Only the
-- version and the document change: the state, its digest, LAST_MESSAGE_ID
-- and UPDATED_AT stay. A row is raised only from the version the resync
-- read; the caller holds PIPELINE_LOCK, so every row matches, and the
-- count it gets back is checked.
-- binds: $1 bigint[]  flid, $2 bigint[]  the version read (same order),
--        $3 bigint[]  the new version, $4 text[]  the state document at it
-- returns: nothing (the number of rows raised)
-- locks: the updated FLIGHT_SCHD rows
UPDATE flight_schd AS f
SET state_version = r.state_version,
    state_document = r.state_document
FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[])
    AS r (flid, from_version, state_version, state_document)
WHERE f.flid = r.flid
  AND f.state_version = r.from_version
