-- Undoes V017__proc_state_minutes.sql (Oracle 11g mirror of migrations_pg/2026-12-05-000017_proc_state_minutes/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP INDEX PROC_STATE_UPDATED_IX;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 17;
COMMIT;
