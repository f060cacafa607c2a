-- Undoes V003__pipeline.sql (Oracle 11g mirror of migrations_pg/2026-11-29-000003_pipeline/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP SEQUENCE REQ_TRACK_SEQ;
DROP TABLE REQ_TRACK;
DROP TABLE PROC_STATE;
DROP TABLE PIPELINE_LOCK;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 3;
COMMIT;
