-- Oracle 11g mirror of migrations_pg/2026-12-06-000019_operator_action/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V019__operator_action.sql`),
-- as the schema owner, after V018.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The operator's record (docs/operations.md, "The operator's record"): every action an operator
-- takes — a requeue, a release or reject of a held snapshot, a request for a day — from the
-- command line or the page, with who, when, through which and what became of it, refused ones
-- too. Written in the same state transaction as the action itself, so that no action is
-- recorded that did not happen and none happens unrecorded.

CREATE TABLE OPERATOR_ACTION (
    ACTION_ID      NUMBER(19)           NOT NULL,
    TAKEN_AT       TIMESTAMP(6)         NOT NULL,
    TAKEN_BY       VARCHAR2(128 CHAR)   NOT NULL,
    VIA            VARCHAR2(8 CHAR)     NOT NULL,
    ACTION         VARCHAR2(16 CHAR)    NOT NULL,
    MESSAGE_ID     NUMBER(19),
    OPERATION_DAY  DATE,
    FLID           NUMBER(19),
    RESULT         VARCHAR2(32 CHAR)    NOT NULL,
    DETAIL         VARCHAR2(1000 CHAR),
    CONSTRAINT OPERATOR_ACTION_PK PRIMARY KEY (ACTION_ID),
    CONSTRAINT OPERATOR_ACTION_VIA_CK CHECK (VIA IN ('CLI', 'PAGE')),
    CONSTRAINT OPERATOR_ACTION_ACTION_CK CHECK (
        ACTION IN ('REQUEUE', 'RELEASE', 'REJECT', 'REQUEST_DAY')
    )
);

-- The status lists the latest actions; the clean-up removes the oldest (cleanup.action_days).
CREATE INDEX OPERATOR_ACTION_TAKEN_IX ON OPERATOR_ACTION (TAKEN_AT);

-- ACTION_ID comes from this sequence (11g has no identity columns): NEXTVAL in the insert.
CREATE SEQUENCE OPERATOR_ACTION_SEQ START WITH 1 INCREMENT BY 1 NOCYCLE CACHE 20;

COMMENT ON TABLE OPERATOR_ACTION IS 'What operators did (flightstate dead requeue, release, reject, request, and the same from the page): one row per action and message, written in the action''s own state transaction, refused actions included';
COMMENT ON COLUMN OPERATOR_ACTION.ACTION_ID IS 'Action id, given by the database (sequence OPERATOR_ACTION_SEQ)';
COMMENT ON COLUMN OPERATOR_ACTION.TAKEN_AT IS 'When the action was taken (UTC)';
COMMENT ON COLUMN OPERATOR_ACTION.TAKEN_BY IS 'Who took it: the --by name, else the operating-system user; on the page, the signed-in name';
COMMENT ON COLUMN OPERATOR_ACTION.VIA IS 'Where it was taken: CLI = the command line, PAGE = the web page';
COMMENT ON COLUMN OPERATOR_ACTION.ACTION IS 'REQUEUE = a dead letter applied again; RELEASE, REJECT = the answer to a held snapshot; REQUEST_DAY = an RQFD request for an operation day';
COMMENT ON COLUMN OPERATOR_ACTION.MESSAGE_ID IS 'The message acted on (CMINMSGS_ID); NULL for an action about no message';
COMMENT ON COLUMN OPERATOR_ACTION.OPERATION_DAY IS 'The operation day acted on; NULL for an action about no day';
COMMENT ON COLUMN OPERATOR_ACTION.FLID IS 'The flight acted on (SIS FLID); NULL for an action about no flight';
COMMENT ON COLUMN OPERATOR_ACTION.RESULT IS 'What became of it, as a code: REQUEUED, ALREADY_REQUEUED, PENDING, GONE, NOT_DEAD, UNKNOWN, RELEASED, REJECTED, ALREADY_DECIDED, NOT_HELD, REGISTERED, REFUSED';
COMMENT ON COLUMN OPERATOR_ACTION.DETAIL IS 'What became of it, for people (cut to 1000 characters)';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 19 AS VERSION, 'operator_action' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
