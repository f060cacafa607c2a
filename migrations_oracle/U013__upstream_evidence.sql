-- Undoes V013__upstream_evidence.sql (Oracle 11g mirror of migrations_pg/2026-12-01-000013_upstream_evidence/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP TABLE SEQN_EVIDENCE;
DROP TABLE ORDER_EVIDENCE;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 13;
COMMIT;
