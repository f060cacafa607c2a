-- Oracle 11g mirror of migrations_pg/2026-12-01-000012_held_snapshots/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V012__held_snapshots.sql`),
-- as the schema owner, after V011.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- Held snapshots (docs/open-questions.md, "Mass-delete guard"): a snapshot that would delete
-- too much of its day is HELD, not applied, until an operator releases it (`flightstate
-- release`, applied as it is) or rejects it (`flightstate reject`, DEAD). The decision is
-- recorded on the message's own row, with who and when.

ALTER TABLE PROC_STATE DROP CONSTRAINT PROC_STATE_STATUS_CK;
ALTER TABLE PROC_STATE ADD CONSTRAINT PROC_STATE_STATUS_CK
    CHECK (STATUS IN ('SUCCEEDED', 'FAILED', 'DEAD', 'HELD'));
ALTER TABLE PROC_STATE ADD (HOLD_DECISION VARCHAR2(16 CHAR));
ALTER TABLE PROC_STATE ADD (HOLD_DECIDED_BY VARCHAR2(128 CHAR));
ALTER TABLE PROC_STATE ADD (HOLD_DECIDED_AT TIMESTAMP(6));
ALTER TABLE PROC_STATE ADD CONSTRAINT PROC_STATE_HOLD_DECISION_CK
    CHECK (HOLD_DECISION IN ('RELEASED', 'REJECTED'));

COMMENT ON COLUMN PROC_STATE.STATUS IS 'SUCCEEDED = applied; FAILED = not applied yet, will be retried; DEAD = given up, needs an operator (flightstate dead); HELD = a snapshot the mass-delete guard stopped, the queue waits for flightstate release or reject';
COMMENT ON COLUMN PROC_STATE.HOLD_DECISION IS 'An operator''s answer to a HELD snapshot: RELEASED = applied as it is (flightstate release), REJECTED = DEAD (flightstate reject); NULL = never held, or still waiting';
COMMENT ON COLUMN PROC_STATE.HOLD_DECIDED_BY IS 'Who answered: the --by name given to flightstate release or reject, else the operating-system user';
COMMENT ON COLUMN PROC_STATE.HOLD_DECIDED_AT IS 'When the operator answered (UTC)';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 12 AS VERSION, 'held_snapshots' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
