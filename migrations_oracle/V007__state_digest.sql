-- Oracle 11g mirror of migrations_pg/2026-11-29-000007_state_digest/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V007__state_digest.sql`),
-- as the schema owner, after V006. SQL*Plus stops at the first error (WHENEVER below) and the
-- script records itself in FLIGHTSTATE_MIGRATION only at its end; `flightstate migrate` also
-- records each statement it completes and resumes after the last one.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The digest of each flight's stored state, so that a snapshot can tell which of its
-- flights are unchanged from one narrow read instead of reading every detail table back.
--
-- It is bookkeeping: written with every state the pipeline writes, from that state; a row
-- written by anything else (a DBA's hand edit) carries a digest that no longer matches its
-- content, and the next snapshot that carries the flight then rewrites it in full (NULL, or
-- any mismatch, means "not known to be unchanged"). VARCHAR2 rather than CHAR(64), like the
-- other SHA-256 columns: no blank-padded comparison can surprise.

ALTER TABLE FLIGHT_SCHD ADD (
    STATE_DIGEST     VARCHAR2(64 CHAR)
);

COMMENT ON COLUMN FLIGHT_SCHD.STATE_DIGEST IS 'Lower-case hex SHA-256 of the flight''s full state (main row and every collection) as the pipeline last wrote it; NULL when unknown';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 7 AS VERSION, 'state_digest' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
