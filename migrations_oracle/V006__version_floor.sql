-- Oracle 11g mirror of migrations_pg/2026-11-29-000006_version_floor/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V006__version_floor.sql`), as the schema
-- owner, after V000. DDL is not transactional in Oracle: SQL*Plus stops at the first error
-- (WHENEVER below) and the script records itself in FLIGHTSTATE_MIGRATION only at its end, so
-- a half-applied script is one without its APPLIED row; `flightstate migrate` also records
-- each statement it completes and resumes after the last one.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The version floor of deleted flights, and the per-flight index of pending change notices.
--
-- A flight deleted (tombstone at its last version + 1) and later created again must continue
-- above its tombstone: consumers order a flight's messages by (FLID, STATE_VERSION,
-- UPDATED_AT), so a recreated flight restarting at version 1 would sort below its own
-- tombstone and be dropped. The floor is kept in a table of its own because outbox rows are
-- purged and the flight's main row is gone.

CREATE TABLE FLIGHT_VERSION_FLOOR (
    FLID             NUMBER(19)         NOT NULL,
    STATE_VERSION    NUMBER(19)         NOT NULL,
    DELETED_AT       TIMESTAMP(6)      NOT NULL,
    CONSTRAINT FLIGHT_VERSION_FLOOR_PK PRIMARY KEY (FLID),
    CONSTRAINT FLIGHT_VERSION_FLOOR_VER_CK CHECK (STATE_VERSION >= 1)
);

COMMENT ON TABLE FLIGHT_VERSION_FLOOR IS 'The highest tombstone version of each flight ever deleted: a flight created again under the same FLID starts at this version + 1, so that it sorts after its tombstone';
COMMENT ON COLUMN FLIGHT_VERSION_FLOOR.FLID IS 'SIS FLID of a deleted flight';
COMMENT ON COLUMN FLIGHT_VERSION_FLOOR.STATE_VERSION IS 'The STATE_VERSION of its latest tombstone (its last version + 1)';
COMMENT ON COLUMN FLIGHT_VERSION_FLOOR.DELETED_AT IS 'When that deletion was committed (UTC)';

-- The dispatcher keeps a flight's change notifications in order across retries: it skips a
-- flight while one of its notifications waits for its retry time.
-- Function-based (11g has no partial index), like KAFKA_SCHD_FLID_PENDING_IX, and with its
-- INITRANS (V004: the pump and several dispatchers share its hot blocks).
CREATE INDEX KAFKA_MSG_FLID_PENDING_IX ON KAFKA_MSG (
    CASE WHEN SENT_AT IS NULL THEN FLID END,
    CASE WHEN SENT_AT IS NULL THEN EVENT_ID END
) INITRANS 8;

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 6 AS VERSION, 'version_floor' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
