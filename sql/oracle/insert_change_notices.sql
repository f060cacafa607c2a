-- name: insert_change_notices
-- Registers change notifications in the KAFKA_MSG outbox: what changed and
-- which message changed it, never the state itself. One batch entry per
-- notice (array DML); the payload is bound as a CLOB, so its length has no
-- 4000-byte limit. EVENT_ID comes from KAFKA_MSG_SEQ (11g has no identity).
-- binds (per batch entry): :flid number(19) (NULL for a notice about no single
--        flight), :change_kind varchar2, :payload clob (JSON),
--        :message_id number(19), :created_at timestamp (UTC)
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO KAFKA_MSG (EVENT_ID, FLID, CHANGE_KIND, PAYLOAD, MESSAGE_ID, CREATED_AT)
VALUES (KAFKA_MSG_SEQ.NEXTVAL, :flid, :change_kind, :payload, :message_id, :created_at)
