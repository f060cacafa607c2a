-- Oracle 11g mirror of migrations_pg/2026-12-01-000015_cleanup/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V015__cleanup.sql`),
-- as the schema owner, after V011.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- Lifecycle clean-up (docs/operations.md, "Clean-up"): a message's processing record is purged
-- only once no journaled call targets it any more, a look-up by EFFECT_CALL.TARGET per record.

CREATE INDEX EFFECT_CALL_TARGET_IX ON EFFECT_CALL (TARGET);

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 15 AS VERSION, 'cleanup' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
