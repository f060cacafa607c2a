-- name: select_watermark
-- How far what the pipeline applied has reached the topics, for the
-- heartbeat (docs/kafka.md, "Heartbeats"): the highest message id PROC_STATE
-- holds with a final status (SUCCEEDED or DEAD) and when it got it, and the
-- lowest message id of a row still pending in each outbox. A row leaves the
-- outbox only once the broker confirmed it, so every change of every message
-- below the lowest pending one is on the topics. The final statuses are one
-- backward step of PROC_STATE_STATUS_IX each; the outboxes hold pending rows
-- only, so their minimums read what is still to send.
-- binds: $1 varchar  SUCCEEDED, $2 varchar  DEAD
-- returns: one row: last_message_id (NULL when PROC_STATE holds no final
--          status), last_applied_at (UTC, NULL then), state_lowest_pending,
--          change_lowest_pending (NULL when that outbox is empty)
-- locks: none
SELECT f.last_message_id,
       (SELECT p.updated_at FROM proc_state p WHERE p.message_id = f.last_message_id)
           AS last_applied_at,
       (SELECT min(s.message_id) FROM kafka_schd s WHERE s.sent_at IS NULL)
           AS state_lowest_pending,
       (SELECT min(m.message_id) FROM kafka_msg m WHERE m.sent_at IS NULL)
           AS change_lowest_pending
FROM (SELECT max(l.last_id) AS last_message_id
      FROM (SELECT max(message_id) AS last_id FROM proc_state WHERE status = $1
            UNION ALL
            SELECT max(message_id) AS last_id FROM proc_state WHERE status = $2) l) f
