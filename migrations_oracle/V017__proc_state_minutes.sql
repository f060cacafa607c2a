-- Oracle 11g mirror of migrations_pg/2026-12-05-000017_proc_state_minutes/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V017__proc_state_minutes.sql`),
-- as the schema owner, after V016.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The status page's charts (docs/api.md, "The last hours"): the outcomes PROC_STATE recorded
-- in the last 6 or 24 hours, read every refresh by `select_proc_minutes`, a range on
-- PROC_STATE.UPDATED_AT that without this index reads the whole table.

CREATE INDEX PROC_STATE_UPDATED_IX ON PROC_STATE (UPDATED_AT);

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 17 AS VERSION, 'proc_state_minutes' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
