-- Oracle 11g mirror of migrations_pg/2026-12-01-000014_replay/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V014__replay.sql`),
-- as the schema owner, after V013.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- Replays (docs/operations.md): `flightstate replay` re-applies a snapshot already applied, under
-- an operator's explicit day and version policy; the replay is recorded on the message's own
-- row: how often it was replayed, by whom, when and under which policy.

ALTER TABLE PROC_STATE ADD (REPLAY_COUNT NUMBER(10) DEFAULT 0 NOT NULL);
ALTER TABLE PROC_STATE ADD (REPLAYED_BY VARCHAR2(128 CHAR));
ALTER TABLE PROC_STATE ADD (REPLAYED_AT TIMESTAMP(6));
ALTER TABLE PROC_STATE ADD (REPLAY_POLICY VARCHAR2(200 CHAR));
ALTER TABLE PROC_STATE ADD CONSTRAINT PROC_STATE_REPLAY_COUNT_CK CHECK (REPLAY_COUNT >= 0);

COMMENT ON COLUMN PROC_STATE.REPLAY_COUNT IS 'How many times an operator replayed the message after it was applied (flightstate replay)';
COMMENT ON COLUMN PROC_STATE.REPLAYED_BY IS 'Who replayed it last: the --by name given to flightstate replay, else the operating-system user';
COMMENT ON COLUMN PROC_STATE.REPLAYED_AT IS 'When it was replayed last (UTC)';
COMMENT ON COLUMN PROC_STATE.REPLAY_POLICY IS 'The policy of the last replay as the operator gave it (day, version policy, overrides), e.g. day=2026-09-09 version=force';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 14 AS VERSION, 'replay' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
