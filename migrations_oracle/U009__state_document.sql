-- Undoes V009__state_document.sql (Oracle 11g mirror of migrations_pg/2026-11-30-000009_state_document/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

ALTER TABLE FLIGHT_SCHD DROP COLUMN STATE_DOCUMENT;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 9;
COMMIT;
