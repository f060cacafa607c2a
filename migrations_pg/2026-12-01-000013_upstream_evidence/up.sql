-- Evidence of the upstream's order (docs/open-questions.md): rule M lets a same-day snapshot
-- overwrite what flight events wrote before it, which is right only if messages arrive in the
-- order the upstream sent them. Nothing in the protocol proves that, so the state records,
-- per operation day, every time the arrival order contradicts the senders' clocks (META
-- DTTM), and, per sender, what its sequence numbers (META SEQN) did. Both tables are written
-- in the state transaction of the message they count, so a crash never loses or doubles a
-- count. Neither decides anything: the order of application stays the mailbox id.

CREATE TABLE ORDER_EVIDENCE (
    OPERATION_DAY          DATE           NOT NULL,
    SNAPSHOT_DTTM          TIMESTAMP(0),
    SNAPSHOT_MESSAGE_ID    BIGINT,
    NEWEST_EVENT_DTTM      TIMESTAMP(0),
    NEWEST_EVENT_ID        BIGINT,
    LATE_EVENTS            BIGINT         DEFAULT 0 NOT NULL,
    LAST_LATE_EVENT_ID     BIGINT,
    LATE_EVENT_AFTER_ID    BIGINT,
    STALE_SNAPSHOTS        BIGINT         DEFAULT 0 NOT NULL,
    LAST_STALE_SNAPSHOT_ID BIGINT,
    STALE_SNAPSHOT_OVER_ID BIGINT,
    UPDATED_AT             TIMESTAMP(0)   NOT NULL,
    CONSTRAINT ORDER_EVIDENCE_PK PRIMARY KEY (OPERATION_DAY),
    CONSTRAINT ORDER_EVIDENCE_COUNTS_CK CHECK (LATE_EVENTS >= 0 AND STALE_SNAPSHOTS >= 0)
);

COMMENT ON TABLE ORDER_EVIDENCE IS 'Per operation day, the arrivals that contradict the senders'' clocks (META DTTM): evidence for or against rule M (a same-day snapshot overwrites earlier events), which assumes arrival order is upstream order';
COMMENT ON COLUMN ORDER_EVIDENCE.OPERATION_DAY IS 'The operation day (SCHD_GEN.OPERATION_DAY, FLIGHT_SCHD.OPERATION_DAY)';
COMMENT ON COLUMN ORDER_EVIDENCE.SNAPSHOT_DTTM IS 'META DTTM of the day''s latest applied snapshot (station-local); NULL before the first';
COMMENT ON COLUMN ORDER_EVIDENCE.SNAPSHOT_MESSAGE_ID IS 'Message id of that snapshot';
COMMENT ON COLUMN ORDER_EVIDENCE.NEWEST_EVENT_DTTM IS 'The newest META DTTM among flight events applied to the day''s flights since that snapshot (station-local); NULL when none';
COMMENT ON COLUMN ORDER_EVIDENCE.NEWEST_EVENT_ID IS 'Message id of the event with that DTTM';
COMMENT ON COLUMN ORDER_EVIDENCE.LATE_EVENTS IS 'Flight events applied after the day''s snapshot although their DTTM is older than the snapshot''s';
COMMENT ON COLUMN ORDER_EVIDENCE.LAST_LATE_EVENT_ID IS 'Message id of the latest such event';
COMMENT ON COLUMN ORDER_EVIDENCE.LATE_EVENT_AFTER_ID IS 'Message id of the snapshot that latest late event came after';
COMMENT ON COLUMN ORDER_EVIDENCE.STALE_SNAPSHOTS IS 'Snapshots applied after flight events of the day whose DTTM is newer than the snapshot''s: each overwrote newer data';
COMMENT ON COLUMN ORDER_EVIDENCE.LAST_STALE_SNAPSHOT_ID IS 'Message id of the latest such snapshot';
COMMENT ON COLUMN ORDER_EVIDENCE.STALE_SNAPSHOT_OVER_ID IS 'Message id of the newest event that latest stale snapshot overwrote';
COMMENT ON COLUMN ORDER_EVIDENCE.UPDATED_AT IS 'When the row was last written (UTC)';

CREATE TABLE SEQN_EVIDENCE (
    SENDER              VARCHAR(128)   NOT NULL,
    LAST_SEQN           VARCHAR(64)    NOT NULL,
    LAST_MESSAGE_ID     BIGINT         NOT NULL,
    MESSAGES            BIGINT         DEFAULT 0 NOT NULL,
    REPEATS             BIGINT         DEFAULT 0 NOT NULL,
    GAPS                BIGINT         DEFAULT 0 NOT NULL,
    MISSING             BIGINT         DEFAULT 0 NOT NULL,
    RESETS              BIGINT         DEFAULT 0 NOT NULL,
    UNREADABLE          BIGINT         DEFAULT 0 NOT NULL,
    LAST_ANOMALY        VARCHAR(16),
    LAST_ANOMALY_ID     BIGINT,
    UPDATED_AT          TIMESTAMP(0)   NOT NULL,
    CONSTRAINT SEQN_EVIDENCE_PK PRIMARY KEY (SENDER),
    CONSTRAINT SEQN_EVIDENCE_COUNTS_CK CHECK (MESSAGES >= 0 AND REPEATS >= 0 AND GAPS >= 0
        AND MISSING >= 0 AND RESETS >= 0 AND UNREADABLE >= 0),
    CONSTRAINT SEQN_EVIDENCE_ANOMALY_CK CHECK (LAST_ANOMALY IN ('REPEAT', 'GAP', 'RESET', 'UNREADABLE'))
);

COMMENT ON TABLE SEQN_EVIDENCE IS 'Per inbound sender (META SNDR), what its sequence numbers (META SEQN) did in mailbox order: repeats, gaps, resets; 999999 then 000000 is the protocol''s wrap, not an anomaly. Evidence only: SEQN never orders anything';
COMMENT ON COLUMN SEQN_EVIDENCE.SENDER IS 'META SNDR as sent';
COMMENT ON COLUMN SEQN_EVIDENCE.LAST_SEQN IS 'META SEQN of the sender''s latest message, as sent';
COMMENT ON COLUMN SEQN_EVIDENCE.LAST_MESSAGE_ID IS 'Message id of that message: a message at or below it was counted already (a retry or a redelivery)';
COMMENT ON COLUMN SEQN_EVIDENCE.MESSAGES IS 'Messages of the sender counted';
COMMENT ON COLUMN SEQN_EVIDENCE.REPEATS IS 'Messages whose SEQN equals the one before';
COMMENT ON COLUMN SEQN_EVIDENCE.GAPS IS 'Messages whose SEQN skipped numbers ahead of the one before';
COMMENT ON COLUMN SEQN_EVIDENCE.MISSING IS 'Numbers skipped by all gaps together';
COMMENT ON COLUMN SEQN_EVIDENCE.RESETS IS 'Messages whose SEQN went back (other than the wrap 999999 to 000000)';
COMMENT ON COLUMN SEQN_EVIDENCE.UNREADABLE IS 'Messages whose SEQN is not a number (not compared)';
COMMENT ON COLUMN SEQN_EVIDENCE.LAST_ANOMALY IS 'What the latest anomaly was: REPEAT, GAP, RESET or UNREADABLE';
COMMENT ON COLUMN SEQN_EVIDENCE.LAST_ANOMALY_ID IS 'Message id of the latest anomaly';
COMMENT ON COLUMN SEQN_EVIDENCE.UPDATED_AT IS 'When the row was last written (UTC)';
