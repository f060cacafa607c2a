-- Undoes V002__snapshot_ledger.sql (Oracle 11g mirror of migrations_pg/2026-11-29-000002_snapshot_ledger/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP TABLE SCHD_GEN_FLID;
DROP TABLE SCHD_GEN;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 2;
COMMIT;
