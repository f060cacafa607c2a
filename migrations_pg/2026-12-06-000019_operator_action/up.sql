-- The operator's record (docs/operations.md, "The operator's record"): every action an operator
-- takes — a requeue, a release or reject of a held snapshot, a request for a day — from the
-- command line or the page, with who, when, through which and what became of it, refused ones
-- too. Written in the same state transaction as the action itself, so that no action is
-- recorded that did not happen and none happens unrecorded.

CREATE TABLE OPERATOR_ACTION (
    ACTION_ID      BIGINT          GENERATED ALWAYS AS IDENTITY,
    TAKEN_AT       TIMESTAMP       NOT NULL,
    TAKEN_BY       VARCHAR(128)    NOT NULL,
    VIA            VARCHAR(8)      NOT NULL,
    ACTION         VARCHAR(16)     NOT NULL,
    MESSAGE_ID     BIGINT,
    OPERATION_DAY  DATE,
    FLID           BIGINT,
    RESULT         VARCHAR(32)     NOT NULL,
    DETAIL         VARCHAR(1000),
    CONSTRAINT OPERATOR_ACTION_PK PRIMARY KEY (ACTION_ID),
    CONSTRAINT OPERATOR_ACTION_VIA_CK CHECK (VIA IN ('CLI', 'PAGE')),
    CONSTRAINT OPERATOR_ACTION_ACTION_CK CHECK (
        ACTION IN ('REQUEUE', 'RELEASE', 'REJECT', 'REQUEST_DAY')
    )
);

-- The status lists the latest actions; the clean-up removes the oldest (cleanup.action_days).
CREATE INDEX OPERATOR_ACTION_TAKEN_IX ON OPERATOR_ACTION (TAKEN_AT);

COMMENT ON TABLE OPERATOR_ACTION IS 'What operators did (flightstate dead requeue, release, reject, request, and the same from the page): one row per action and message, written in the action''s own state transaction, refused actions included';
COMMENT ON COLUMN OPERATOR_ACTION.ACTION_ID IS 'Action id, given by the database';
COMMENT ON COLUMN OPERATOR_ACTION.TAKEN_AT IS 'When the action was taken (UTC)';
COMMENT ON COLUMN OPERATOR_ACTION.TAKEN_BY IS 'Who took it: the --by name, else the operating-system user; on the page, the signed-in name';
COMMENT ON COLUMN OPERATOR_ACTION.VIA IS 'Where it was taken: CLI = the command line, PAGE = the web page';
COMMENT ON COLUMN OPERATOR_ACTION.ACTION IS 'REQUEUE = a dead letter applied again; RELEASE, REJECT = the answer to a held snapshot; REQUEST_DAY = an RQFD request for an operation day';
COMMENT ON COLUMN OPERATOR_ACTION.MESSAGE_ID IS 'The message acted on (CMINMSGS_ID); NULL for an action about no message';
COMMENT ON COLUMN OPERATOR_ACTION.OPERATION_DAY IS 'The operation day acted on; NULL for an action about no day';
COMMENT ON COLUMN OPERATOR_ACTION.FLID IS 'The flight acted on (SIS FLID); NULL for an action about no flight';
COMMENT ON COLUMN OPERATOR_ACTION.RESULT IS 'What became of it, as a code: REQUEUED, ALREADY_REQUEUED, PENDING, GONE, NOT_DEAD, UNKNOWN, RELEASED, REJECTED, ALREADY_DECIDED, NOT_HELD, REGISTERED, REFUSED';
COMMENT ON COLUMN OPERATOR_ACTION.DETAIL IS 'What became of it, for people (cut to 1000 characters)';
