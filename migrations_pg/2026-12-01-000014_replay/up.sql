-- Replays (docs/operations.md): `flightstate replay` re-applies a snapshot already applied, under
-- an operator's explicit day and version policy; the replay is recorded on the message's own
-- row: how often it was replayed, by whom, when and under which policy.

ALTER TABLE PROC_STATE ADD COLUMN REPLAY_COUNT INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE PROC_STATE ADD COLUMN REPLAYED_BY VARCHAR(128);
ALTER TABLE PROC_STATE ADD COLUMN REPLAYED_AT TIMESTAMP;
ALTER TABLE PROC_STATE ADD COLUMN REPLAY_POLICY VARCHAR(200);
ALTER TABLE PROC_STATE ADD CONSTRAINT PROC_STATE_REPLAY_COUNT_CK CHECK (REPLAY_COUNT >= 0);

COMMENT ON COLUMN PROC_STATE.REPLAY_COUNT IS 'How many times an operator replayed the message after it was applied (flightstate replay)';
COMMENT ON COLUMN PROC_STATE.REPLAYED_BY IS 'Who replayed it last: the --by name given to flightstate replay, else the operating-system user';
COMMENT ON COLUMN PROC_STATE.REPLAYED_AT IS 'When it was replayed last (UTC)';
COMMENT ON COLUMN PROC_STATE.REPLAY_POLICY IS 'The policy of the last replay as the operator gave it (day, version policy, overrides), e.g. day=2026-09-09 version=force';
