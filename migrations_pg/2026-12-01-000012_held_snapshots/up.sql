-- Held snapshots (docs/open-questions.md, "Mass-delete guard"): a snapshot that would delete
-- too much of its day is HELD, not applied, until an operator releases it (`flightstate
-- release`, applied as it is) or rejects it (`flightstate reject`, DEAD). The decision is
-- recorded on the message's own row, with who and when.

ALTER TABLE PROC_STATE DROP CONSTRAINT PROC_STATE_STATUS_CK;
ALTER TABLE PROC_STATE ADD CONSTRAINT PROC_STATE_STATUS_CK
    CHECK (STATUS IN ('SUCCEEDED', 'FAILED', 'DEAD', 'HELD'));
ALTER TABLE PROC_STATE ADD COLUMN HOLD_DECISION VARCHAR(16);
ALTER TABLE PROC_STATE ADD COLUMN HOLD_DECIDED_BY VARCHAR(128);
ALTER TABLE PROC_STATE ADD COLUMN HOLD_DECIDED_AT TIMESTAMP;
ALTER TABLE PROC_STATE ADD CONSTRAINT PROC_STATE_HOLD_DECISION_CK
    CHECK (HOLD_DECISION IN ('RELEASED', 'REJECTED'));

COMMENT ON COLUMN PROC_STATE.STATUS IS 'SUCCEEDED = applied; FAILED = not applied yet, will be retried; DEAD = given up, needs an operator (flightstate dead); HELD = a snapshot the mass-delete guard stopped, the queue waits for flightstate release or reject';
COMMENT ON COLUMN PROC_STATE.HOLD_DECISION IS 'An operator''s answer to a HELD snapshot: RELEASED = applied as it is (flightstate release), REJECTED = DEAD (flightstate reject); NULL = never held, or still waiting';
COMMENT ON COLUMN PROC_STATE.HOLD_DECIDED_BY IS 'Who answered: the --by name given to flightstate release or reject, else the operating-system user';
COMMENT ON COLUMN PROC_STATE.HOLD_DECIDED_AT IS 'When the operator answered (UTC)';
