-- Freshness of what was published (docs/api.md, `flightstate_publish_freshness_seconds`): when
-- the mailbox received each message, on flightstate's own clock, so that the dispatcher can
-- tell how long a change took from the mailbox to the broker's confirmation.

ALTER TABLE PROC_STATE ADD COLUMN RECEIVED_AT TIMESTAMP;

COMMENT ON COLUMN PROC_STATE.RECEIVED_AT IS 'When the mailbox received the message (CMINMSGS_DATE_RECEIVED), as the pump''s clock tells it: the time of its read less the row''s age by the mailbox server''s clock (UTC); set by the first attempt that knew it and kept; NULL for messages applied by a tool (flightstate apply, release, replay) or without a receive date';
