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
-- binds: :ids FLIGHTSTATE_ID_LIST  message ids (distinct)
-- returns: message_id, received_at (UTC), recorded_at (UTC: UPDATED_AT) of
--          each message among :ids that qualifies
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none
SELECT /*+ LEADING(ids) USE_NL(p) CARDINALITY(ids 100) */
    p.MESSAGE_ID,
    p.RECEIVED_AT,
    p.UPDATED_AT AS RECORDED_AT
FROM TABLE(CAST(:ids AS FLIGHTSTATE_ID_LIST)) ids,
    PROC_STATE p
WHERE p.MESSAGE_ID = ids.COLUMN_VALUE
  AND p.RECEIVED_AT IS NOT NULL
  AND (p.REPLAYED_AT IS NULL OR p.REPLAYED_AT <> p.UPDATED_AT)
