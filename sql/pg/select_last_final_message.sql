-- name: select_last_final_message
-- The highest message id PROC_STATE holds with a final status (SUCCEEDED or
-- DEAD), or that an operator requeued (FAILED, REQUEUED: it was DEAD and
-- written back, and its row is pending again by the operator's hand, not
-- lost): the last message whose write-back the state database knows of.
-- Mailbox rows above it that flightstate wrote back are the lost tail of a
-- state database that lost its last commits (docs/operations.md, "After a
-- failover"). One backward step of PROC_STATE_STATUS_IX per status, as
-- cheap with a million rows as with ten.
-- binds: $1 varchar  SUCCEEDED, $2 varchar  DEAD, $3 varchar  FAILED,
--        $4 varchar  REQUEUED
-- returns: one row: last_message_id (NULL when PROC_STATE holds no final
--          status)
-- locks: none
SELECT max(f.last_id) AS last_message_id
FROM (SELECT max(message_id) AS last_id FROM proc_state WHERE status = $1
      UNION ALL
      SELECT max(message_id) AS last_id FROM proc_state WHERE status = $2
      UNION ALL
      SELECT max(message_id) AS last_id FROM proc_state
      WHERE status = $3 AND error_kind = $4) AS f
