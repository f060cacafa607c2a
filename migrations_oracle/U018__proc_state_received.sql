-- Undoes V018__proc_state_received.sql (Oracle 11g mirror of migrations_pg/2026-12-06-000018_proc_state_received/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

ALTER TABLE PROC_STATE DROP (RECEIVED_AT);

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 18;
COMMIT;
