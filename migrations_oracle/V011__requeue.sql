-- Oracle 11g mirror of migrations_pg/2026-12-01-000011_requeue/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V011__requeue.sql`),
-- as the schema owner, after V010.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- Dead-letter requeue (docs/operations.md): `flightstate dead requeue` is an operator's action,
-- recorded on the message's own row: how often it was requeued, by whom and when.

ALTER TABLE PROC_STATE ADD (REQUEUE_COUNT NUMBER(10) DEFAULT 0 NOT NULL);
ALTER TABLE PROC_STATE ADD (REQUEUED_BY VARCHAR2(128 CHAR));
ALTER TABLE PROC_STATE ADD (REQUEUED_AT TIMESTAMP(6));
ALTER TABLE PROC_STATE ADD CONSTRAINT PROC_STATE_REQUEUE_COUNT_CK CHECK (REQUEUE_COUNT >= 0);

COMMENT ON COLUMN PROC_STATE.REQUEUE_COUNT IS 'How many times an operator requeued the message after it was DEAD (flightstate dead requeue); its write-back after the n-th is the call backfill:{id}:requeue:{n}';
COMMENT ON COLUMN PROC_STATE.REQUEUED_BY IS 'Who requeued it last: the --by name given to flightstate dead requeue, else the operating-system user';
COMMENT ON COLUMN PROC_STATE.REQUEUED_AT IS 'When it was requeued last (UTC)';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 11 AS VERSION, 'requeue' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
