-- Oracle 11g mirror of migrations_pg/2026-11-29-000003_pipeline/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V003__pipeline.sql`), as the schema
-- owner, after V000. DDL is not transactional in Oracle: SQL*Plus stops at the first error
-- (WHENEVER below) and the script records itself in FLIGHTSTATE_MIGRATION only at its end, so
-- a half-applied script is one without its APPLIED row; `flightstate migrate` also records
-- each statement it completes and resumes after the last one.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The pipeline's own bookkeeping: the single lock row that serialises state transactions and
-- holds the pump lease, the per-message processing state, and the outbound requests.

CREATE TABLE PIPELINE_LOCK (
    LOCK_ID           NUMBER(5)      NOT NULL,
    LEASE_HOLDER      VARCHAR2(200 CHAR),
    LEASE_EPOCH       NUMBER(19)        DEFAULT 0 NOT NULL,
    LEASE_EXPIRES_AT  TIMESTAMP(6),
    CONSTRAINT PIPELINE_LOCK_PK PRIMARY KEY (LOCK_ID),
    CONSTRAINT PIPELINE_LOCK_ONE_ROW_CK CHECK (LOCK_ID = 1),
    CONSTRAINT PIPELINE_LOCK_EPOCH_CK CHECK (LEASE_EPOCH >= 0)
);

-- The one row every state transaction locks; it must exist before the first pump starts.
INSERT INTO PIPELINE_LOCK (LOCK_ID, LEASE_EPOCH) VALUES (1, 0);

COMMENT ON TABLE PIPELINE_LOCK IS 'Exactly one row: every state transaction locks it (SELECT ... FOR UPDATE) to serialise writers, and it holds the lease of the single active pump';
COMMENT ON COLUMN PIPELINE_LOCK.LOCK_ID IS 'Always 1: the table has exactly one row';
COMMENT ON COLUMN PIPELINE_LOCK.LEASE_HOLDER IS 'Which pump instance holds the lease (host and process); NULL = no pump has taken it yet';
COMMENT ON COLUMN PIPELINE_LOCK.LEASE_EPOCH IS 'Fencing epoch: bumped by every takeover; a state transaction commits only if it still sees the epoch it took the lease with';
COMMENT ON COLUMN PIPELINE_LOCK.LEASE_EXPIRES_AT IS 'When the lease runs out unless renewed (UTC); after that another pump may take over';

CREATE TABLE PROC_STATE (
    MESSAGE_ID       NUMBER(19)         NOT NULL,
    IDENTITY_KEY     VARCHAR2(80 CHAR)    NOT NULL,
    STATUS           VARCHAR2(16 CHAR)    NOT NULL,
    ERROR_KIND       VARCHAR2(32 CHAR),
    ERROR_TEXT       VARCHAR2(2000 CHAR),
    ATTEMPTS         NUMBER(10)        DEFAULT 0 NOT NULL,
    MSG_TYPE         VARCHAR2(16 CHAR),
    MSG_SUBTYPE      VARCHAR2(16 CHAR),
    NEXT_ATTEMPT_AT  TIMESTAMP(6),
    FIRST_SEEN_AT    TIMESTAMP(6)      NOT NULL,
    UPDATED_AT       TIMESTAMP(6)      NOT NULL,
    CONSTRAINT PROC_STATE_PK PRIMARY KEY (MESSAGE_ID),
    CONSTRAINT PROC_STATE_IDENTITY_UK UNIQUE (IDENTITY_KEY),
    CONSTRAINT PROC_STATE_STATUS_CK CHECK (STATUS IN ('SUCCEEDED', 'FAILED', 'DEAD')),
    CONSTRAINT PROC_STATE_ATTEMPTS_CK CHECK (ATTEMPTS >= 0)
);

-- Operations list failed and dead messages (status, dead, replay); the head of the queue is
-- looked up by status too.
CREATE INDEX PROC_STATE_STATUS_IX ON PROC_STATE (STATUS, MESSAGE_ID);

COMMENT ON TABLE PROC_STATE IS 'Processing state of each inbound message: one row per message that flightstate has tried to apply';
COMMENT ON COLUMN PROC_STATE.MESSAGE_ID IS 'Id of the message: its mailbox row id (CMINMSGS_ID), or the id given to flightstate apply';
COMMENT ON COLUMN PROC_STATE.IDENTITY_KEY IS 'Stable identity of the message (where it came from and its id); a second look at an already committed message finds it here and changes nothing';
COMMENT ON COLUMN PROC_STATE.STATUS IS 'SUCCEEDED = applied; FAILED = not applied yet, will be retried; DEAD = given up, needs an operator (flightstate dead)';
COMMENT ON COLUMN PROC_STATE.ERROR_KIND IS 'Kind of the last failure, which decided retry or dead-lettering (e.g. UNSUPPORTED, INFRA); NULL when SUCCEEDED';
COMMENT ON COLUMN PROC_STATE.ERROR_TEXT IS 'The last failure as text for the operator (cut to 2000 characters); NULL when SUCCEEDED';
COMMENT ON COLUMN PROC_STATE.ATTEMPTS IS 'How many times flightstate has tried to apply the message';
COMMENT ON COLUMN PROC_STATE.MSG_TYPE IS 'SIS META/TYPE of the message (e.g. SCHD, FLOP); NULL when the envelope could not be read';
COMMENT ON COLUMN PROC_STATE.MSG_SUBTYPE IS 'SIS META/STYP of the message (e.g. DNLD, GTDT); NULL when the envelope could not be read';
COMMENT ON COLUMN PROC_STATE.NEXT_ATTEMPT_AT IS 'Earliest time of the next retry of a FAILED message (UTC); NULL otherwise';
COMMENT ON COLUMN PROC_STATE.FIRST_SEEN_AT IS 'When flightstate first tried the message (UTC)';
COMMENT ON COLUMN PROC_STATE.UPDATED_AT IS 'When the row last changed (UTC)';

CREATE TABLE REQ_TRACK (
    REQ_ID                   NUMBER(19)        NOT NULL,
    REQ_KIND                 VARCHAR2(16 CHAR)   NOT NULL,
    OPERATION_DAY            DATE,
    SENDER                   VARCHAR2(32 CHAR),
    STATUS                   VARCHAR2(16 CHAR)   NOT NULL,
    CREATED_AT               TIMESTAMP(6)     NOT NULL,
    COMPLETED_AT             TIMESTAMP(6),
    COMPLETED_BY_MESSAGE_ID  NUMBER(19),
    EXPIRED_BY_REQ_ID        NUMBER(19),
    CONSTRAINT REQ_TRACK_PK PRIMARY KEY (REQ_ID),
    CONSTRAINT REQ_TRACK_STATUS_CK CHECK (STATUS IN ('PENDING', 'COMPLETED', 'EXPIRED')),
    CONSTRAINT REQ_TRACK_COMPLETED_CK CHECK (
        STATUS <> 'COMPLETED'
        OR (COMPLETED_AT IS NOT NULL AND COMPLETED_BY_MESSAGE_ID IS NOT NULL)
    )
);

-- One live request per kind: registering a new one expires the old one first. Oracle 11g has
-- no partial index: this function-based unique index holds a key only for PENDING rows (an
-- all-NULL key is not indexed), which is the same rule.
CREATE UNIQUE INDEX REQ_TRACK_ONE_PENDING_UX ON REQ_TRACK (CASE WHEN STATUS = 'PENDING' THEN REQ_KIND END);
-- A RESP completes the newest PENDING request of its (operation day, sender, kind).
CREATE INDEX REQ_TRACK_MATCH_IX ON REQ_TRACK (OPERATION_DAY, SENDER, REQ_KIND, STATUS);

-- REQ_ID comes from this sequence (11g has no identity columns): NEXTVAL in the insert.
CREATE SEQUENCE REQ_TRACK_SEQ START WITH 1 INCREMENT BY 1 NOCYCLE CACHE 20;

COMMENT ON TABLE REQ_TRACK IS 'Outbound requests to AODB (e.g. RQFD for an operation day''s flights, written to the mailbox COUTMSGS): one row per request';
COMMENT ON COLUMN REQ_TRACK.REQ_ID IS 'Request id, given by the database (sequence REQ_TRACK_SEQ)';
COMMENT ON COLUMN REQ_TRACK.REQ_KIND IS 'SIS message type of the request (e.g. RQFD, RQRD)';
COMMENT ON COLUMN REQ_TRACK.OPERATION_DAY IS 'Operation day asked for; NULL for a request that is not about a day';
COMMENT ON COLUMN REQ_TRACK.SENDER IS 'SIS SNDR expected in the answer (normally AODB)';
COMMENT ON COLUMN REQ_TRACK.STATUS IS 'PENDING = waiting for the answer (at most one per kind); COMPLETED = answered; EXPIRED = replaced by a newer request of the same kind';
COMMENT ON COLUMN REQ_TRACK.CREATED_AT IS 'When the request was registered (UTC)';
COMMENT ON COLUMN REQ_TRACK.COMPLETED_AT IS 'When the answer was applied, or when the request expired (UTC)';
COMMENT ON COLUMN REQ_TRACK.COMPLETED_BY_MESSAGE_ID IS 'Id of the message (CMINMSGS_ID) whose answer (RESP, or DNLD of the same day) completed the request';
COMMENT ON COLUMN REQ_TRACK.EXPIRED_BY_REQ_ID IS 'REQ_ID of the newer request that expired this one';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 3 AS VERSION, 'pipeline' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
