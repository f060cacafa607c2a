-- The version floor of deleted flights, and the per-flight index of pending change notices.
--
-- A flight deleted (tombstone at its last version + 1) and later created again must continue
-- above its tombstone: consumers order a flight's messages by (FLID, STATE_VERSION,
-- UPDATED_AT), so a recreated flight restarting at version 1 would sort below its own
-- tombstone and be dropped. The floor is kept in a table of its own because outbox rows are
-- purged and the flight's main row is gone.

CREATE TABLE FLIGHT_VERSION_FLOOR (
    FLID             BIGINT         NOT NULL,
    STATE_VERSION    BIGINT         NOT NULL,
    DELETED_AT       TIMESTAMP      NOT NULL,
    CONSTRAINT FLIGHT_VERSION_FLOOR_PK PRIMARY KEY (FLID),
    CONSTRAINT FLIGHT_VERSION_FLOOR_VER_CK CHECK (STATE_VERSION >= 1)
);

COMMENT ON TABLE FLIGHT_VERSION_FLOOR IS 'The highest tombstone version of each flight ever deleted: a flight created again under the same FLID starts at this version + 1, so that it sorts after its tombstone';
COMMENT ON COLUMN FLIGHT_VERSION_FLOOR.FLID IS 'SIS FLID of a deleted flight';
COMMENT ON COLUMN FLIGHT_VERSION_FLOOR.STATE_VERSION IS 'The STATE_VERSION of its latest tombstone (its last version + 1)';
COMMENT ON COLUMN FLIGHT_VERSION_FLOOR.DELETED_AT IS 'When that deletion was committed (UTC)';

-- The dispatcher keeps a flight's change notifications in order across retries: it skips a
-- flight while one of its notifications waits for its retry time.
CREATE INDEX KAFKA_MSG_FLID_PENDING_IX ON KAFKA_MSG (FLID, EVENT_ID) WHERE SENT_AT IS NULL;
