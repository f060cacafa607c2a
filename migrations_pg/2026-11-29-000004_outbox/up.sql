-- The transactional outbox: rows written in the same transaction as the state change they
-- announce, sent to Kafka afterwards by the dispatcher. A row is done when SENT_AT is set.

CREATE TABLE KAFKA_SCHD (
    EVENT_ID         BIGINT         GENERATED ALWAYS AS IDENTITY,
    FLID             BIGINT         NOT NULL,
    STATE_VERSION    BIGINT         NOT NULL,
    EVENT_KIND       VARCHAR(16)    NOT NULL,
    MESSAGE_ID       BIGINT         NOT NULL,
    CREATED_AT       TIMESTAMP      NOT NULL,
    SENT_AT          TIMESTAMP,
    ATTEMPTS         INTEGER        DEFAULT 0 NOT NULL,
    NEXT_ATTEMPT_AT  TIMESTAMP,
    LAST_ERROR       VARCHAR(2000),
    CONSTRAINT KAFKA_SCHD_PK PRIMARY KEY (EVENT_ID),
    CONSTRAINT KAFKA_SCHD_KIND_CK CHECK (EVENT_KIND IN ('STATE', 'TOMBSTONE')),
    CONSTRAINT KAFKA_SCHD_ATTEMPTS_CK CHECK (ATTEMPTS >= 0)
);

-- The dispatcher claims pending rows oldest first, and coalesces a flight's pending rows;
-- sent rows (the vast majority) stay out of both indexes.
CREATE INDEX KAFKA_SCHD_PENDING_IX ON KAFKA_SCHD (EVENT_ID) WHERE SENT_AT IS NULL;
CREATE INDEX KAFKA_SCHD_FLID_PENDING_IX ON KAFKA_SCHD (FLID, EVENT_ID) WHERE SENT_AT IS NULL;

COMMENT ON TABLE KAFKA_SCHD IS 'Outbox of flight state events for the state topic (default flight.state), keyed by FLID: one row per state change or deletion; the dispatcher sends the flight''s current state, not the row';
COMMENT ON COLUMN KAFKA_SCHD.EVENT_ID IS 'Event id, given by the database at insert time (not in commit order: a higher id may commit first); consumers may dedupe on it';
COMMENT ON COLUMN KAFKA_SCHD.FLID IS 'SIS FLID: the flight the event is about (the Kafka key)';
COMMENT ON COLUMN KAFKA_SCHD.STATE_VERSION IS 'FLIGHT_SCHD.STATE_VERSION reached by the change (for a tombstone: the last version before deletion)';
COMMENT ON COLUMN KAFKA_SCHD.EVENT_KIND IS 'STATE = the flight changed, send its whole state; TOMBSTONE = the flight was deleted, send {"FLID":..., "DELETED":true}';
COMMENT ON COLUMN KAFKA_SCHD.MESSAGE_ID IS 'Id of the message (CMINMSGS_ID) whose transaction registered the event';
COMMENT ON COLUMN KAFKA_SCHD.CREATED_AT IS 'When the event was registered (UTC)';
COMMENT ON COLUMN KAFKA_SCHD.SENT_AT IS 'When Kafka confirmed delivery (or a newer row of the same flight made it redundant) (UTC); NULL = still to send';
COMMENT ON COLUMN KAFKA_SCHD.ATTEMPTS IS 'How many times the dispatcher tried to send it';
COMMENT ON COLUMN KAFKA_SCHD.NEXT_ATTEMPT_AT IS 'Earliest time of the next try after a failed one (UTC); NULL = as soon as possible';
COMMENT ON COLUMN KAFKA_SCHD.LAST_ERROR IS 'The last send failure as text (cut to 2000 characters)';

CREATE TABLE KAFKA_MSG (
    EVENT_ID         BIGINT         GENERATED ALWAYS AS IDENTITY,
    FLID             BIGINT,
    MESSAGE_ID       BIGINT         NOT NULL,
    CHANGE_KIND      VARCHAR(32)    NOT NULL,
    PAYLOAD          TEXT           NOT NULL,
    CREATED_AT       TIMESTAMP      NOT NULL,
    SENT_AT          TIMESTAMP,
    ATTEMPTS         INTEGER        DEFAULT 0 NOT NULL,
    NEXT_ATTEMPT_AT  TIMESTAMP,
    LAST_ERROR       VARCHAR(2000),
    CONSTRAINT KAFKA_MSG_PK PRIMARY KEY (EVENT_ID),
    CONSTRAINT KAFKA_MSG_ATTEMPTS_CK CHECK (ATTEMPTS >= 0)
);

CREATE INDEX KAFKA_MSG_PENDING_IX ON KAFKA_MSG (EVENT_ID) WHERE SENT_AT IS NULL;

COMMENT ON TABLE KAFKA_MSG IS 'Outbox of change notifications for the change topic (default flight.change): what changed and which message changed it, never the state itself';
COMMENT ON COLUMN KAFKA_MSG.EVENT_ID IS 'Event id, given by the database; consumers may dedupe on it';
COMMENT ON COLUMN KAFKA_MSG.FLID IS 'SIS FLID: the flight that changed; NULL for a notification about no single flight (e.g. a whole snapshot)';
COMMENT ON COLUMN KAFKA_MSG.MESSAGE_ID IS 'Id of the message (CMINMSGS_ID) that caused the change';
COMMENT ON COLUMN KAFKA_MSG.CHANGE_KIND IS 'What kind of change (e.g. CREATED, UPDATED, DELETED, SNAPSHOT)';
COMMENT ON COLUMN KAFKA_MSG.PAYLOAD IS 'The notification as JSON text, sent as the Kafka value';
COMMENT ON COLUMN KAFKA_MSG.CREATED_AT IS 'When the notification was registered (UTC)';
COMMENT ON COLUMN KAFKA_MSG.SENT_AT IS 'When Kafka confirmed delivery (UTC); NULL = still to send';
COMMENT ON COLUMN KAFKA_MSG.ATTEMPTS IS 'How many times the dispatcher tried to send it';
COMMENT ON COLUMN KAFKA_MSG.NEXT_ATTEMPT_AT IS 'Earliest time of the next try after a failed one (UTC); NULL = as soon as possible';
COMMENT ON COLUMN KAFKA_MSG.LAST_ERROR IS 'The last send failure as text (cut to 2000 characters)';
