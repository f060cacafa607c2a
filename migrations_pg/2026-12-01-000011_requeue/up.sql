-- Dead-letter requeue (docs/operations.md): `flightstate dead requeue` is an operator's action,
-- recorded on the message's own row: how often it was requeued, by whom and when.

ALTER TABLE PROC_STATE ADD COLUMN REQUEUE_COUNT INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE PROC_STATE ADD COLUMN REQUEUED_BY VARCHAR(128);
ALTER TABLE PROC_STATE ADD COLUMN REQUEUED_AT TIMESTAMP;
ALTER TABLE PROC_STATE ADD CONSTRAINT PROC_STATE_REQUEUE_COUNT_CK CHECK (REQUEUE_COUNT >= 0);

COMMENT ON COLUMN PROC_STATE.REQUEUE_COUNT IS 'How many times an operator requeued the message after it was DEAD (flightstate dead requeue); its write-back after the n-th is the call backfill:{id}:requeue:{n}';
COMMENT ON COLUMN PROC_STATE.REQUEUED_BY IS 'Who requeued it last: the --by name given to flightstate dead requeue, else the operating-system user';
COMMENT ON COLUMN PROC_STATE.REQUEUED_AT IS 'When it was requeued last (UTC)';
