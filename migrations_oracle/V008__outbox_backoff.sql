-- Oracle 11g mirror of migrations_pg/2026-11-30-000008_outbox_backoff/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V008__outbox_backoff.sql`),
-- as the schema owner, after V007.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- Nothing to create on Oracle. PostgreSQL's claims list the flights in back-off once per
-- claim, which needs an index of the rows in back-off; Oracle's claims
-- (sql/oracle/claim_state_events.sql, claim_change_notices.sql) probe each due row's flight
-- through the function-based KAFKA_SCHD_FLID_PENDING_IX (V004) and KAFKA_MSG_FLID_PENDING_IX (V006),
-- which hold pending rows only. The script exists so that both histories count the same
-- versions.

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 8 AS VERSION, 'outbox_backoff' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
