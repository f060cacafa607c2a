-- Undoes V019__operator_action.sql (Oracle 11g mirror of migrations_pg/2026-12-06-000019_operator_action/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP SEQUENCE OPERATOR_ACTION_SEQ;
DROP TABLE OPERATOR_ACTION;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 19;
COMMIT;
