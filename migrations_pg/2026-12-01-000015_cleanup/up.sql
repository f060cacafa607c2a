-- Lifecycle clean-up (docs/operations.md, "Clean-up"): a message's processing record is purged
-- only once no journaled call targets it any more, a look-up by EFFECT_CALL.TARGET per record.

CREATE INDEX EFFECT_CALL_TARGET_IX ON EFFECT_CALL (TARGET);
