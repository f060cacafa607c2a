-- name: insert_change_notices
-- Registers change notifications in the KAFKA_MSG outbox: what changed and
-- which message changed it, never the state itself. One batch entry per
-- notice (array DML); the payload is bound as a CLOB, so its length has no
-- 4000-byte limit. EVENT_ID comes from KAFKA_MSG_SEQ (11g has no identity).
-- The CLOB is the last bind (OCI wants long binds after the short ones). An
-- empty payload or kind is refused before the statement (store::refuse_empty):
-- '' is NULL in Oracle and both columns are NOT NULL.
-- binds (per batch entry): :flid number(19) (NULL for a notice about no single
--        flight), :change_kind varchar2, :message_id number(19),
--        :created_at timestamp (UTC), :payload clob (JSON)
-- nonempty: :change_kind, :payload  refused empty first by store::nonempty
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO KAFKA_MSG (EVENT_ID, FLID, CHANGE_KIND, MESSAGE_ID, CREATED_AT, PAYLOAD)
VALUES (KAFKA_MSG_SEQ.NEXTVAL, :flid, :change_kind, :message_id, :created_at, :payload)
