-- Undoes V005__effect_journal.sql (Oracle 11g mirror of migrations_pg/2026-11-29-000005_effect_journal/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP SEQUENCE EFFECT_CALL_SEQ;
DROP TABLE EFFECT_CALL;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 5;
COMMIT;
