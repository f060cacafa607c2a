-- Undoes V008__outbox_backoff.sql (Oracle 11g mirror of migrations_pg/2026-11-30-000008_outbox_backoff/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 8;
COMMIT;
