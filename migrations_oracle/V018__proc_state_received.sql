-- Oracle 11g mirror of migrations_pg/2026-12-06-000018_proc_state_received/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V018__proc_state_received.sql`),
-- as the schema owner, after V017.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- Freshness of what was published (docs/api.md, `flightstate_publish_freshness_seconds`): when
-- the mailbox received each message, on flightstate's own clock, so that the dispatcher can
-- tell how long a change took from the mailbox to the broker's confirmation.

ALTER TABLE PROC_STATE ADD (RECEIVED_AT TIMESTAMP(6));

COMMENT ON COLUMN PROC_STATE.RECEIVED_AT IS 'When the mailbox received the message (CMINMSGS_DATE_RECEIVED), on flightstate''s clock: the pump''s time of its read less the row''s age by the mailbox server''s clock (UTC); recorded by the first attempt that knew it and kept after; NULL for a message applied by flightstate apply, or whose mailbox row had no receive date';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 18 AS VERSION, 'proc_state_received' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
