-- name: update_state_documents
-- Writes the state document of flights whose main rows upsert_flights has
-- just written in this transaction: one batch entry per flight, array DML
-- (one round trip per batch). The document is a CLOB bind (several KB, over
-- the 4,000 bytes of a VARCHAR2 bind), so it goes only where 11g takes a LOB
-- bind without a select list: an UPDATE's SET. The row is named in an inline
-- view so that the CLOB is the statement's last bind (OCI wants long binds
-- after the short ones, ORA-24816). The PostgreSQL dialect writes the
-- document in upsert_flights itself.
-- binds (per batch entry):
--   :flid number(19)
--   :state_document clob  (the JSON the state topic carries, of the state written)
-- returns: nothing (one row per entry: FLID is the key, and the row exists)
-- locks: the FLIGHT_SCHD rows, already locked by upsert_flights
UPDATE (SELECT STATE_DOCUMENT FROM FLIGHT_SCHD WHERE FLID = :flid)
SET STATE_DOCUMENT = :state_document
