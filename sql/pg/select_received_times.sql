-- name: select_received_times
-- When the mailbox received each of the messages whose outbox rows a
-- dispatcher pass is settling as sent, for the freshness of what was
-- published (docs/api.md, flightstate_publish_freshness_seconds). A message
-- without a receipt time (applied by a tool) or without a row any more
-- (purged by the clean-up) is left out.
-- binds: $1 bigint[]  message_id (distinct)
-- returns: message_id, received_at (UTC) of each message among $1 that has one
-- locks: none
SELECT message_id, received_at
FROM proc_state
WHERE message_id = ANY ($1)
  AND received_at IS NOT NULL
