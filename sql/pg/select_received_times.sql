-- name: select_received_times
-- When the mailbox received each of the messages whose outbox rows a
-- dispatcher pass is settling as sent, for the freshness of what was
-- published (docs/api.md, flightstate_publish_freshness_seconds), and when
-- the message's outcome was recorded: the dispatcher counts a row only when
-- it was registered then, by the message's own transaction (its CREATED_AT),
-- not later in the message's name (the clean-up's tombstones, a resync's
-- states). A message without a receipt time (applied by a tool), without a
-- row any more (purged by the clean-up), or whose last outcome an operator's
-- replay recorded (its rows are the replay's) is left out.
-- binds: $1 bigint[]  message_id (distinct)
-- returns: message_id, received_at (UTC), recorded_at (UTC: UPDATED_AT) of
--          each message among $1 that qualifies
-- locks: none
SELECT message_id, received_at, updated_at AS recorded_at
FROM proc_state
WHERE message_id = ANY ($1)
  AND received_at IS NOT NULL
  AND (replayed_at IS NULL OR replayed_at <> updated_at)
