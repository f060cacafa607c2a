-- Oracle 11g mirror of migrations_pg/2026-11-30-000009_state_document/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V009__state_document.sql`),
-- as the schema owner, after V008.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The state document of each flight: its whole state as the JSON the state topic carries.
-- The column mirrors PostgreSQL's, but Oracle's upsert_flights leaves it NULL: a document is
-- several KB, which in 11g SQL is a CLOB bind per row of every array DML (VARCHAR2 binds stop at
-- 4,000 bytes, ORA-01461 past them). NULL means "not stored", and the dispatcher then builds
-- the document from the main row and the nine detail tables, one statement per table per batch.

-- Storage (docs/oracle.md, "LOB storage"): BasicFile, in any tablespace and edition, kept in
-- the row up to 3,964 bytes; CACHE, so that a document past that is read and written through
-- the buffer cache rather than by direct-path I/O on every state written and every dispatcher
-- read; RETENTION (automatic undo), so that older versions of a rewritten document are kept as
-- long as UNDO_RETENTION says rather than in 10% of the segment (PCTVERSION 10, the default),
-- which a dispatcher reading beside a busy pump could outrun (ORA-22924). SecureFile is the
-- DBA's choice where the tablespace is ASSM (docs/oracle.md gives the statement): it moves the
-- table, which a migration should not impose.
ALTER TABLE FLIGHT_SCHD ADD (
    STATE_DOCUMENT   CLOB
)
LOB (STATE_DOCUMENT) STORE AS BASICFILE (ENABLE STORAGE IN ROW CACHE RETENTION);

COMMENT ON COLUMN FLIGHT_SCHD.STATE_DOCUMENT IS 'The flight''s whole state as the JSON the state topic carries (docs/kafka.md), at STATE_VERSION; NULL when not stored (always, on Oracle: the dispatcher builds it from the tables)';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 9 AS VERSION, 'state_document' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
