-- Undoes V016__outbox_key_slots.sql (Oracle 11g mirror of
-- migrations_pg/2026-12-02-000016_outbox_key_slots/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

ALTER INDEX KAFKA_SCHD_PK REBUILD INITRANS 2;
ALTER INDEX KAFKA_MSG_PK REBUILD INITRANS 2;

COMMENT ON COLUMN FLIGHT_SCHD.STATE_DOCUMENT IS 'The flight''s whole state as the JSON the state topic carries (docs/kafka.md), at STATE_VERSION; NULL when not stored (always, on Oracle: the dispatcher builds it from the tables)';

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 16;
COMMIT;
