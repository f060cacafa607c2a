-- Oracle 11g mirror of migrations_pg/2026-11-29-000004_outbox/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V004__outbox.sql`), as the schema
-- owner, after V000. DDL is not transactional in Oracle: SQL*Plus stops at the first error
-- (WHENEVER below) and the script records itself in FLIGHTSTATE_MIGRATION only at its end, so
-- a half-applied script is one without its APPLIED row; `flightstate migrate` also records
-- each statement it completes and resumes after the last one.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The transactional outbox: rows written in the same transaction as the state change they
-- announce, sent to Kafka afterwards by the dispatcher. A row is done when SENT_AT is set.
--
-- The dispatcher claims rows inside a SERIALIZABLE transaction (sql/oracle/set_repeatable_read.sql)
-- while the pump inserts into the same few hot blocks. Without ROWDEPENDENCIES Oracle knows
-- only when a *block* last changed, so locking a row of a block that any other transaction
-- touched since the claim's snapshot fails with ORA-08177 although the row itself did not
-- change; ROWDEPENDENCIES keeps a change SCN per row (6 bytes a row) and leaves only real
-- conflicts. INITRANS 8 reserves interested-transaction slots for the pump and several
-- dispatchers in one block, so a block never runs out of them (which also reads as ORA-08177
-- under SERIALIZABLE). ROWDEPENDENCIES cannot be added to an existing table: it is here.

CREATE TABLE KAFKA_SCHD (
    EVENT_ID         NUMBER(19)         NOT NULL,
    FLID             NUMBER(19)         NOT NULL,
    STATE_VERSION    NUMBER(19)         NOT NULL,
    EVENT_KIND       VARCHAR2(16 CHAR)    NOT NULL,
    MESSAGE_ID       NUMBER(19)         NOT NULL,
    CREATED_AT       TIMESTAMP(6)      NOT NULL,
    SENT_AT          TIMESTAMP(6),
    ATTEMPTS         NUMBER(10)        DEFAULT 0 NOT NULL,
    NEXT_ATTEMPT_AT  TIMESTAMP(6),
    LAST_ERROR       VARCHAR2(2000 CHAR),
    CONSTRAINT KAFKA_SCHD_PK PRIMARY KEY (EVENT_ID),
    CONSTRAINT KAFKA_SCHD_KIND_CK CHECK (EVENT_KIND IN ('STATE', 'TOMBSTONE')),
    CONSTRAINT KAFKA_SCHD_ATTEMPTS_CK CHECK (ATTEMPTS >= 0)
)
INITRANS 8
ROWDEPENDENCIES;

-- The dispatcher claims pending rows oldest first, and coalesces a flight's pending rows;
-- sent rows (the vast majority) stay out of both indexes. Oracle 11g has no partial index:
-- these function-based indexes hold a key only while SENT_AT IS NULL (an all-NULL key is not
-- indexed). A statement uses them only through the same CASE expressions
-- (sql/oracle/claim_state_events.sql, count_pending_events.sql).
CREATE INDEX KAFKA_SCHD_PENDING_IX ON KAFKA_SCHD (CASE WHEN SENT_AT IS NULL THEN EVENT_ID END) INITRANS 8;
CREATE INDEX KAFKA_SCHD_FLID_PENDING_IX ON KAFKA_SCHD (
    CASE WHEN SENT_AT IS NULL THEN FLID END,
    CASE WHEN SENT_AT IS NULL THEN EVENT_ID END
) INITRANS 8;

-- EVENT_ID comes from this sequence (11g has no identity columns): NEXTVAL in the insert.
-- Like an identity, a number is taken at insert, not at commit. ORDER: the claims rely on a
-- flight's rows having rising EVENT_IDs in the order the pump wrote them; on RAC a NOORDER
-- sequence gives each instance its own cached range, so a later row could get a lower id.
-- ORDER keeps the cache (numbers still come 100 at a time from the dictionary).
CREATE SEQUENCE KAFKA_SCHD_SEQ START WITH 1 INCREMENT BY 1 NOCYCLE CACHE 100 ORDER;

COMMENT ON TABLE KAFKA_SCHD IS 'Outbox of flight state events for the state topic (default flight.state), keyed by FLID: one row per state change or deletion; the dispatcher sends the flight''s current state, not the row';
COMMENT ON COLUMN KAFKA_SCHD.EVENT_ID IS 'Event id, given by the database at insert time from KAFKA_SCHD_SEQ (not in commit order: a higher id may commit first); consumers may dedupe on it';
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
    EVENT_ID         NUMBER(19)         NOT NULL,
    FLID             NUMBER(19),
    MESSAGE_ID       NUMBER(19)         NOT NULL,
    CHANGE_KIND      VARCHAR2(32 CHAR)    NOT NULL,
    PAYLOAD          CLOB           NOT NULL,
    CREATED_AT       TIMESTAMP(6)      NOT NULL,
    SENT_AT          TIMESTAMP(6),
    ATTEMPTS         NUMBER(10)        DEFAULT 0 NOT NULL,
    NEXT_ATTEMPT_AT  TIMESTAMP(6),
    LAST_ERROR       VARCHAR2(2000 CHAR),
    CONSTRAINT KAFKA_MSG_PK PRIMARY KEY (EVENT_ID),
    CONSTRAINT KAFKA_MSG_ATTEMPTS_CK CHECK (ATTEMPTS >= 0)
)
INITRANS 8
ROWDEPENDENCIES;

-- Function-based, like KAFKA_SCHD_PENDING_IX.
CREATE INDEX KAFKA_MSG_PENDING_IX ON KAFKA_MSG (CASE WHEN SENT_AT IS NULL THEN EVENT_ID END) INITRANS 8;

-- EVENT_ID comes from this sequence: NEXTVAL in the insert. ORDER, like KAFKA_SCHD_SEQ.
CREATE SEQUENCE KAFKA_MSG_SEQ START WITH 1 INCREMENT BY 1 NOCYCLE CACHE 100 ORDER;

COMMENT ON TABLE KAFKA_MSG IS 'Outbox of change notifications for the change topic (default flight.change): what changed and which message changed it, never the state itself';
COMMENT ON COLUMN KAFKA_MSG.EVENT_ID IS 'Event id, given by the database from KAFKA_MSG_SEQ; consumers may dedupe on it';
COMMENT ON COLUMN KAFKA_MSG.FLID IS 'SIS FLID: the flight that changed; NULL for a notification about no single flight (e.g. a whole snapshot)';
COMMENT ON COLUMN KAFKA_MSG.MESSAGE_ID IS 'Id of the message (CMINMSGS_ID) that caused the change';
COMMENT ON COLUMN KAFKA_MSG.CHANGE_KIND IS 'What kind of change (e.g. CREATED, UPDATED, DELETED, SNAPSHOT)';
COMMENT ON COLUMN KAFKA_MSG.PAYLOAD IS 'The notification as JSON text, sent as the Kafka value';
COMMENT ON COLUMN KAFKA_MSG.CREATED_AT IS 'When the notification was registered (UTC)';
COMMENT ON COLUMN KAFKA_MSG.SENT_AT IS 'When Kafka confirmed delivery (UTC); NULL = still to send';
COMMENT ON COLUMN KAFKA_MSG.ATTEMPTS IS 'How many times the dispatcher tried to send it';
COMMENT ON COLUMN KAFKA_MSG.NEXT_ATTEMPT_AT IS 'Earliest time of the next try after a failed one (UTC); NULL = as soon as possible';
COMMENT ON COLUMN KAFKA_MSG.LAST_ERROR IS 'The last send failure as text (cut to 2000 characters)';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 4 AS VERSION, 'outbox' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
