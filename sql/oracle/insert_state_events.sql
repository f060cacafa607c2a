-- name: insert_state_events
-- Registers state events (STATE or TOMBSTONE) in the KAFKA_SCHD outbox, in
-- the same transaction as the state they announce: one batch entry per event
-- (array DML). EVENT_ID comes from KAFKA_SCHD_SEQ (11g has no identity).
-- binds (per batch entry): :flid number(19), :state_version number(19),
--        :event_kind varchar2, :message_id number(19), :created_at timestamp (UTC)
-- nonempty: :event_kind  an EventKind code
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO KAFKA_SCHD (EVENT_ID, FLID, STATE_VERSION, EVENT_KIND, MESSAGE_ID, CREATED_AT)
VALUES (KAFKA_SCHD_SEQ.NEXTVAL, :flid, :state_version, :event_kind, :message_id, :created_at)
