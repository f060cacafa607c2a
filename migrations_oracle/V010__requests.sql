-- Oracle 11g mirror of migrations_pg/2026-12-01-000010_requests/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V010__requests.sql`),
-- as the schema owner, after V009.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- Outbound requests (docs/requests.md): what REQ_TRACK needs to send a request through the
-- effect-call journal and to show what became of it, and the counter of the outbound SEQN.
-- REQ_ID already comes from REQ_TRACK_SEQ (V003), taken before the row is written.

ALTER TABLE REQ_TRACK ADD (ANSWER_DUE_AT TIMESTAMP(6));
ALTER TABLE REQ_TRACK ADD (SEQN VARCHAR2(6 CHAR));
ALTER TABLE REQ_TRACK ADD (CALL_ID NUMBER(19));

-- A request nobody answered within `requests.answer_timeout_secs` is TIMED_OUT: visible, and no
-- longer live (a later answer completes nothing).
ALTER TABLE REQ_TRACK DROP CONSTRAINT REQ_TRACK_STATUS_CK;
ALTER TABLE REQ_TRACK ADD CONSTRAINT REQ_TRACK_STATUS_CK
    CHECK (STATUS IN ('PENDING', 'COMPLETED', 'EXPIRED', 'TIMED_OUT'));

COMMENT ON COLUMN REQ_TRACK.STATUS IS 'PENDING = waiting for the answer (at most one per kind); COMPLETED = answered; EXPIRED = replaced by a newer request of the same kind; TIMED_OUT = no answer before ANSWER_DUE_AT';
COMMENT ON COLUMN REQ_TRACK.COMPLETED_AT IS 'When the answer was applied, or when the request expired or timed out (UTC)';
COMMENT ON COLUMN REQ_TRACK.ANSWER_DUE_AT IS 'When a PENDING request without an answer becomes TIMED_OUT (UTC): CREATED_AT plus requests.answer_timeout_secs';
COMMENT ON COLUMN REQ_TRACK.SEQN IS 'SIS META/SEQN of the request message as written to COUTMSGS (6 digits, zero-padded)';
COMMENT ON COLUMN REQ_TRACK.CALL_ID IS 'EFFECT_CALL.CALL_ID of the call that writes the request message into COUTMSGS';

-- The outbound SEQN counter. It only grows; SEQN is its value modulo 1,000,000 (the wrap is in
-- Rust: request::Seqn). NOCACHE ORDER: requests are rare, and numbers without gaps or reordering
-- (across RAC instances too) are what an operator matches against AODB's log.
CREATE SEQUENCE OUTBOUND_SEQN_SEQ START WITH 1 INCREMENT BY 1 MINVALUE 1 NOCYCLE NOCACHE ORDER;

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 10 AS VERSION, 'requests' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
