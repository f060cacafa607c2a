-- Undoes V010__requests.sql (Oracle 11g mirror of migrations_pg/2026-12-01-000010_requests/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP SEQUENCE OUTBOUND_SEQN_SEQ;

ALTER TABLE REQ_TRACK DROP CONSTRAINT REQ_TRACK_STATUS_CK;
ALTER TABLE REQ_TRACK ADD CONSTRAINT REQ_TRACK_STATUS_CK
    CHECK (STATUS IN ('PENDING', 'COMPLETED', 'EXPIRED'));

COMMENT ON COLUMN REQ_TRACK.STATUS IS 'PENDING = waiting for the answer (at most one per kind); COMPLETED = answered; EXPIRED = replaced by a newer request of the same kind';
COMMENT ON COLUMN REQ_TRACK.COMPLETED_AT IS 'When the answer was applied, or when the request expired (UTC)';

ALTER TABLE REQ_TRACK DROP (ANSWER_DUE_AT, SEQN, CALL_ID);

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 10;
COMMIT;
