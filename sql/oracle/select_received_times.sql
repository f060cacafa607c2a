-- name: select_received_times
-- When the mailbox received each of the messages whose outbox rows a
-- dispatcher pass is settling as sent, for the freshness of what was
-- published (docs/api.md, flightstate_publish_freshness_seconds). A message
-- without a receipt time (applied by a tool) or without a row any more
-- (purged by the clean-up) is left out.
-- binds: :ids FLIGHTSTATE_ID_LIST  message ids (distinct)
-- returns: message_id, received_at (UTC) of each message among :ids that has one
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none
SELECT /*+ LEADING(ids) USE_NL(p) CARDINALITY(ids 100) */
    p.MESSAGE_ID,
    p.RECEIVED_AT
FROM TABLE(CAST(:ids AS FLIGHTSTATE_ID_LIST)) ids,
    PROC_STATE p
WHERE p.MESSAGE_ID = ids.COLUMN_VALUE
  AND p.RECEIVED_AT IS NOT NULL
