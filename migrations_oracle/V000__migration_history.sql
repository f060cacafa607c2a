-- The migration history of the Oracle 11g schema (no PostgreSQL twin: diesel keeps its own).
-- Run first: by `flightstate migrate` when the table is missing, or by a DBA in SQL*Plus as
-- it is (`@V000__migration_history.sql`), as the schema owner.
--
-- Oracle DDL commits as it goes, so a script that fails half-way cannot be rolled back. The
-- history makes that visible: `flightstate migrate` writes a row with STATUS = 'APPLYING'
-- before a script's first statement, counts STEPS_DONE after each statement, and keeps the
-- error in LAST_ERROR; the next run resumes after the last completed statement (if the script
-- is unchanged, by CHECKSUM). Every script's last statements mark its row APPLIED, so a run by
-- hand leaves the same record (without step counts and checksum).
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

CREATE TABLE FLIGHTSTATE_MIGRATION (
    VERSION      NUMBER(5)            NOT NULL,
    NAME         VARCHAR2(200 CHAR)   NOT NULL,
    STATUS       VARCHAR2(16 CHAR)    NOT NULL,
    STEPS_DONE   NUMBER(5),
    STEPS_TOTAL  NUMBER(5),
    CHECKSUM     VARCHAR2(64 CHAR),
    LAST_ERROR   VARCHAR2(2000 CHAR),
    STARTED_AT   TIMESTAMP(6)         NOT NULL,
    FINISHED_AT  TIMESTAMP(6),
    CONSTRAINT FLIGHTSTATE_MIGRATION_PK PRIMARY KEY (VERSION),
    CONSTRAINT FLIGHTSTATE_MIGRATION_ST_CK CHECK (STATUS IN ('APPLYING', 'APPLIED')),
    CONSTRAINT FLIGHTSTATE_MIGRATION_DONE_CK CHECK (
        STATUS <> 'APPLIED' OR FINISHED_AT IS NOT NULL
    )
);

COMMENT ON TABLE FLIGHTSTATE_MIGRATION IS 'Which scripts of migrations_oracle/ this schema holds: one row per script (V000, V001, ...), APPLYING while flightstate migrate runs it or after it failed half-way, APPLIED once complete';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.VERSION IS 'The script''s number (V001__flight_state.sql is 1)';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.NAME IS 'The script''s name after the number (flight_state)';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.STATUS IS 'APPLYING = started and not finished (failed half-way if no run is in progress: see LAST_ERROR; flightstate migrate resumes it); APPLIED = every statement ran';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.STEPS_DONE IS 'How many statements of the script flightstate migrate completed; NULL when the script was run by hand';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.STEPS_TOTAL IS 'How many statements the script has; NULL when the script was run by hand';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.CHECKSUM IS 'SHA-256 (lower-case hex) of the script as flightstate migrate ran it: a half-applied script resumes only if unchanged; NULL when run by hand';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.LAST_ERROR IS 'Why the last run of the script stopped (statement number and error); NULL once applied';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.STARTED_AT IS 'When the script was first started (UTC)';
COMMENT ON COLUMN FLIGHTSTATE_MIGRATION.FINISHED_AT IS 'When its last statement completed (UTC); NULL while APPLYING';

-- The last statements: record this script as applied.
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 0 AS VERSION, 'migration_history' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
