-- Undoes V007__state_digest.sql (Oracle 11g mirror of migrations_pg/2026-11-29-000007_state_digest/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

ALTER TABLE FLIGHT_SCHD DROP COLUMN STATE_DIGEST;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 7;
COMMIT;
