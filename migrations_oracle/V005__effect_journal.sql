-- Oracle 11g mirror of migrations_pg/2026-11-29-000005_effect_journal/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V005__effect_journal.sql`), as the schema
-- owner, after V000. DDL is not transactional in Oracle: SQL*Plus stops at the first error
-- (WHENEVER below) and the script records itself in FLIGHTSTATE_MIGRATION only at its end, so
-- a half-applied script is one without its APPLIED row; `flightstate migrate` also records
-- each statement it completes and resumes after the last one.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The durable effect-call journal (DESIGN §6): one row per call that leaves the database after
-- commit (mailbox write-back, a request written to COUTMSGS). The intent is inserted by the
-- business transaction itself, so no "was it sent?" fact is lost in a crash.

CREATE TABLE EFFECT_CALL (
    CALL_ID          NUMBER(19)         NOT NULL,
    IDEMPOTENCY_KEY  VARCHAR2(64 CHAR)       NOT NULL,
    SCOPE            VARCHAR2(64 CHAR)    NOT NULL,
    STEP             VARCHAR2(64 CHAR)    NOT NULL,
    SUB_KEY          VARCHAR2(200 CHAR)   NOT NULL,
    CALL_KIND        VARCHAR2(32 CHAR)    NOT NULL,
    TARGET           VARCHAR2(200 CHAR)   NOT NULL,
    PAYLOAD          CLOB           NOT NULL,
    PAYLOAD_DIGEST   VARCHAR2(64 CHAR)       NOT NULL,
    STATUS           VARCHAR2(16 CHAR)    DEFAULT 'PENDING' NOT NULL,
    SEND_TOKEN       VARCHAR2(64 CHAR),
    ATTEMPT          NUMBER(10)        DEFAULT 0 NOT NULL,
    LEASE_EPOCH      NUMBER(19),
    DEADLINE_AT      TIMESTAMP(6),
    REMOTE_REF       VARCHAR2(200 CHAR),
    CREATED_AT       TIMESTAMP(6)      NOT NULL,
    DISPATCHED_AT    TIMESTAMP(6),
    RECEIPT_AT       TIMESTAMP(6),
    UPDATED_AT       TIMESTAMP(6)      NOT NULL,
    CONSTRAINT EFFECT_CALL_PK PRIMARY KEY (CALL_ID),
    CONSTRAINT EFFECT_CALL_IDEM_KEY_UK UNIQUE (IDEMPOTENCY_KEY),
    CONSTRAINT EFFECT_CALL_STATUS_CK CHECK (
        STATUS IN ('PENDING', 'DISPATCHED', 'NOT_SENT', 'UNKNOWN', 'ACCEPTED', 'REJECTED', 'CONFLICT')
    ),
    -- Hex SHA-256, lower case, so the same key is never spelled two ways. VARCHAR2 rather
    -- than CHAR: the CHECK fixes the length, and no blank-padded comparison can surprise.
    CONSTRAINT EFFECT_CALL_IDEM_KEY_CK CHECK (REGEXP_LIKE(IDEMPOTENCY_KEY, '^[0-9a-f]{64}$')),
    CONSTRAINT EFFECT_CALL_DIGEST_CK CHECK (REGEXP_LIKE(PAYLOAD_DIGEST, '^[0-9a-f]{64}$')),
    -- Every status after PENDING was reached through DISPATCHED: the grant is never forgotten.
    CONSTRAINT EFFECT_CALL_DISPATCHED_CK CHECK (
        STATUS = 'PENDING' OR (SEND_TOKEN IS NOT NULL AND DISPATCHED_AT IS NOT NULL)
    ),
    CONSTRAINT EFFECT_CALL_ATTEMPT_CK CHECK (ATTEMPT >= 0)
);

-- The effect worker looks for calls still to make or to resolve (PENDING, NOT_SENT, UNKNOWN,
-- DISPATCHED after a crash); operations count calls by status.
CREATE INDEX EFFECT_CALL_STATUS_IX ON EFFECT_CALL (STATUS, CALL_ID);

-- CALL_ID comes from this sequence (11g has no identity columns): NEXTVAL in the insert.
CREATE SEQUENCE EFFECT_CALL_SEQ START WITH 1 INCREMENT BY 1 NOCYCLE CACHE 20;

COMMENT ON TABLE EFFECT_CALL IS 'Durable journal of calls that leave the database after commit (mailbox write-back, requests written to COUTMSGS): one row per logical call, recording intent, grant and outcome';
COMMENT ON COLUMN EFFECT_CALL.CALL_ID IS 'Call id, given by the database (sequence EFFECT_CALL_SEQ)';
COMMENT ON COLUMN EFFECT_CALL.IDEMPOTENCY_KEY IS 'SHA-256 (lower-case hex) of (SCOPE, STEP, SUB_KEY): the one identity of the logical call';
COMMENT ON COLUMN EFFECT_CALL.SCOPE IS 'Which part of flightstate owns the call (e.g. mailbox)';
COMMENT ON COLUMN EFFECT_CALL.STEP IS 'Which step of that part makes the call (e.g. write-back, request)';
COMMENT ON COLUMN EFFECT_CALL.SUB_KEY IS 'Stable name of the logical action (e.g. backfill:{mailbox id}, request:{req id}:{attempt}); never a list position or a time';
COMMENT ON COLUMN EFFECT_CALL.CALL_KIND IS 'What the call does (e.g. BACKFILL = write a message''s status back to CMINMSGS, REQUEST = insert a request into COUTMSGS)';
COMMENT ON COLUMN EFFECT_CALL.TARGET IS 'Where the call goes (e.g. the mailbox table and row id)';
COMMENT ON COLUMN EFFECT_CALL.PAYLOAD IS 'The data needed to make the call (e.g. the write-back status, the request XML); never secrets';
COMMENT ON COLUMN EFFECT_CALL.PAYLOAD_DIGEST IS 'SHA-256 (lower-case hex) of TARGET and PAYLOAD; never changes for the same IDEMPOTENCY_KEY';
COMMENT ON COLUMN EFFECT_CALL.STATUS IS 'PENDING = intent recorded; DISPATCHED = granted, the call may have been made; NOT_SENT = the client is certain it was not sent; UNKNOWN = outcome not known, resolve by reading the target back; ACCEPTED, REJECTED, CONFLICT = the target''s answer';
COMMENT ON COLUMN EFFECT_CALL.SEND_TOKEN IS 'One-time token of the current grant; a receipt carrying an older token never overwrites a newer one';
COMMENT ON COLUMN EFFECT_CALL.ATTEMPT IS 'Number of the current grant (0 = never granted); a NOT_SENT call may be granted again only in a later attempt';
COMMENT ON COLUMN EFFECT_CALL.LEASE_EPOCH IS 'PIPELINE_LOCK.LEASE_EPOCH under which the current grant was made; a receipt under an older lease is kept as evidence only';
COMMENT ON COLUMN EFFECT_CALL.DEADLINE_AT IS 'Latest time the call may still be made (UTC); checked again just before calling';
COMMENT ON COLUMN EFFECT_CALL.REMOTE_REF IS 'Reference returned by the target (e.g. the COUTMSGS_ID of our request row)';
COMMENT ON COLUMN EFFECT_CALL.CREATED_AT IS 'When the intent was recorded (UTC)';
COMMENT ON COLUMN EFFECT_CALL.DISPATCHED_AT IS 'When the current grant was committed, just before the call (UTC)';
COMMENT ON COLUMN EFFECT_CALL.RECEIPT_AT IS 'When the outcome of the call was stored (UTC)';
COMMENT ON COLUMN EFFECT_CALL.UPDATED_AT IS 'When the row last changed (UTC)';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 5 AS VERSION, 'effect_journal' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
