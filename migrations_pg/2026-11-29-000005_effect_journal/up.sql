-- The durable effect-call journal (DESIGN §6): one row per call that leaves the database after
-- commit (mailbox write-back, a request written to COUTMSGS). The intent is inserted by the
-- business transaction itself, so no "was it sent?" fact is lost in a crash.

CREATE TABLE EFFECT_CALL (
    CALL_ID          BIGINT         GENERATED ALWAYS AS IDENTITY,
    IDEMPOTENCY_KEY  CHAR(64)       NOT NULL,
    SCOPE            VARCHAR(64)    NOT NULL,
    STEP             VARCHAR(64)    NOT NULL,
    SUB_KEY          VARCHAR(200)   NOT NULL,
    CALL_KIND        VARCHAR(32)    NOT NULL,
    TARGET           VARCHAR(200)   NOT NULL,
    PAYLOAD          TEXT           NOT NULL,
    PAYLOAD_DIGEST   CHAR(64)       NOT NULL,
    STATUS           VARCHAR(16)    DEFAULT 'PENDING' NOT NULL,
    SEND_TOKEN       VARCHAR(64),
    ATTEMPT          INTEGER        DEFAULT 0 NOT NULL,
    LEASE_EPOCH      BIGINT,
    DEADLINE_AT      TIMESTAMP,
    REMOTE_REF       VARCHAR(200),
    CREATED_AT       TIMESTAMP      NOT NULL,
    DISPATCHED_AT    TIMESTAMP,
    RECEIPT_AT       TIMESTAMP,
    UPDATED_AT       TIMESTAMP      NOT NULL,
    CONSTRAINT EFFECT_CALL_PK PRIMARY KEY (CALL_ID),
    CONSTRAINT EFFECT_CALL_IDEM_KEY_UK UNIQUE (IDEMPOTENCY_KEY),
    CONSTRAINT EFFECT_CALL_STATUS_CK CHECK (
        STATUS IN ('PENDING', 'DISPATCHED', 'NOT_SENT', 'UNKNOWN', 'ACCEPTED', 'REJECTED', 'CONFLICT')
    ),
    -- Hex SHA-256, lower case, so the same key is never spelled two ways.
    CONSTRAINT EFFECT_CALL_IDEM_KEY_CK CHECK (IDEMPOTENCY_KEY ~ '^[0-9a-f]{64}$'),
    CONSTRAINT EFFECT_CALL_DIGEST_CK CHECK (PAYLOAD_DIGEST ~ '^[0-9a-f]{64}$'),
    -- Every status after PENDING was reached through DISPATCHED: the grant is never forgotten.
    CONSTRAINT EFFECT_CALL_DISPATCHED_CK CHECK (
        STATUS = 'PENDING' OR (SEND_TOKEN IS NOT NULL AND DISPATCHED_AT IS NOT NULL)
    ),
    CONSTRAINT EFFECT_CALL_ATTEMPT_CK CHECK (ATTEMPT >= 0)
);

-- The effect worker looks for calls still to make or to resolve (PENDING, NOT_SENT, UNKNOWN,
-- DISPATCHED after a crash); operations count calls by status.
CREATE INDEX EFFECT_CALL_STATUS_IX ON EFFECT_CALL (STATUS, CALL_ID);

COMMENT ON TABLE EFFECT_CALL IS 'Durable journal of calls that leave the database after commit (mailbox write-back, requests written to COUTMSGS): one row per logical call, recording intent, grant and outcome';
COMMENT ON COLUMN EFFECT_CALL.CALL_ID IS 'Call id, given by the database';
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
