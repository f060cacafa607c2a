-- name: raise_state_versions
-- `flightstate resync`: raises flights' STATE_VERSION above what the state
-- topic already holds of them (after a restore of the state database), with
-- the state document at the new version, so that consumers keeping the
-- highest version per FLID take the flight's next messages. Only the
-- version and the document change: the state, its digest, LAST_MESSAGE_ID
-- and UPDATED_AT stay. One batch entry per flight (array DML). A row is
-- raised only from the version the resync read; the caller holds
-- PIPELINE_LOCK, so every row matches (11g's batch mode gives no row count
-- per entry to check it by). The document is a CLOB bind, written in SET
-- and bound last (ORA-24816), the row named in an inline view as in
-- update_state_documents.
-- binds (per batch entry):
--   :flid number(19)
--   :from_version number(19)  the version read
--   :state_version number(19)  the new version
--   :state_document clob  (the JSON the state topic carries, at the new version)
-- returns: nothing
-- locks: the updated FLIGHT_SCHD rows
UPDATE (
    SELECT STATE_VERSION, STATE_DOCUMENT
    FROM FLIGHT_SCHD
    WHERE FLID = :flid
      AND STATE_VERSION = :from_version
)
SET STATE_VERSION = :state_version,
    STATE_DOCUMENT = :state_document
