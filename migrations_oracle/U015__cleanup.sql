-- Undoes V015__cleanup.sql (Oracle 11g mirror of migrations_pg/2026-12-01-000015_cleanup/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP INDEX EFFECT_CALL_TARGET_IX;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 15;
COMMIT;
