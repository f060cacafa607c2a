-- Freshness of what was published (docs/api.md, `flightstate_publish_freshness_seconds`): when
-- the mailbox received each message, on flightstate's own clock, so that the dispatcher can
-- tell how long a change took from the mailbox to the broker's confirmation.

ALTER TABLE PROC_STATE ADD COLUMN RECEIVED_AT TIMESTAMP;

COMMENT ON COLUMN PROC_STATE.RECEIVED_AT IS 'When the mailbox received the message (CMINMSGS_DATE_RECEIVED), on flightstate''s clock: the pump''s time of its read less the row''s age by the mailbox server''s clock (UTC); recorded by the first attempt that knew it and kept after; NULL for a message applied by flightstate apply, or whose mailbox row had no receive date';
