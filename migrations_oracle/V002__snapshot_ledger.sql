-- Oracle 11g mirror of migrations_pg/2026-11-29-000002_snapshot_ledger/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V002__snapshot_ledger.sql`), as the schema
-- owner, after V000. DDL is not transactional in Oracle: SQL*Plus stops at the first error
-- (WHENEVER below) and the script records itself in FLIGHTSTATE_MIGRATION only at its end, so
-- a half-applied script is one without its APPLIED row; `flightstate migrate` also records
-- each statement it completes and resumes after the last one.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The snapshot ledger: per operation day, the version and last message of the daily snapshot
-- (SCHD DNLD/RESP) and its complete flight list. Without the list a new snapshot could not
-- tell which flights the previous one held (the set-difference delete), and without the
-- version two writers could both advance the same day (the CAS bump).

CREATE TABLE SCHD_GEN (
    OPERATION_DAY    DATE          NOT NULL,
    VERSION          NUMBER(19)        NOT NULL,
    LAST_MESSAGE_ID  NUMBER(19)        NOT NULL,
    UPDATED_AT       DATE  NOT NULL,
    CONSTRAINT SCHD_GEN_PK PRIMARY KEY (OPERATION_DAY),
    CONSTRAINT SCHD_GEN_VERSION_CK CHECK (VERSION >= 0)
);

COMMENT ON TABLE SCHD_GEN IS 'Snapshot ledger: one row per operation day that has received a daily snapshot (SCHD DNLD or RESP)';
COMMENT ON COLUMN SCHD_GEN.OPERATION_DAY IS 'The operation day (station local calendar day, as configured)';
COMMENT ON COLUMN SCHD_GEN.VERSION IS 'Snapshot version of the day: grows by 1 with every applied snapshot, bumped by compare-and-set so two writers cannot both advance it';
COMMENT ON COLUMN SCHD_GEN.LAST_MESSAGE_ID IS 'Id of the message (mailbox CMINMSGS_ID) of the last applied snapshot; the same message again is a replay and changes nothing';
COMMENT ON COLUMN SCHD_GEN.UPDATED_AT IS 'When the last snapshot of the day was applied (UTC)';

CREATE TABLE SCHD_GEN_FLID (
    OPERATION_DAY  DATE    NOT NULL,
    FLID           NUMBER(19)  NOT NULL,
    CONSTRAINT SCHD_GEN_FLID_PK PRIMARY KEY (OPERATION_DAY, FLID)
);

-- Finding the snapshot lists that hold a flight (e.g. when a flight is deleted by FLOP FDEL).
CREATE INDEX SCHD_GEN_FLID_FLID_IX ON SCHD_GEN_FLID (FLID);

COMMENT ON TABLE SCHD_GEN_FLID IS 'The complete flight list of the current snapshot of each operation day: one row per (day, FLID); replaced as a whole by the next snapshot';
COMMENT ON COLUMN SCHD_GEN_FLID.OPERATION_DAY IS 'The operation day (SCHD_GEN.OPERATION_DAY)';
COMMENT ON COLUMN SCHD_GEN_FLID.FLID IS 'SIS FLID: a flight listed (as an FLTR record) in the day''s current snapshot';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 2 AS VERSION, 'snapshot_ledger' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
