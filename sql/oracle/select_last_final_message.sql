-- name: select_last_final_message
-- The highest message id PROC_STATE holds with a final status (SUCCEEDED or
-- DEAD), or that an operator requeued (FAILED, REQUEUED: it was DEAD and
-- written back, and its row is pending again by the operator's hand, not
-- lost): the last message whose write-back the state database knows of.
-- Mailbox rows above it that flightstate wrote back are the lost tail of a
-- state database that lost its last commits (docs/operations.md, "After a
-- failover"). One backward step of PROC_STATE_STATUS_IX per status (MIN/MAX
-- index scan), as cheap with a million rows as with ten.
-- binds: :succeeded VARCHAR2  SUCCEEDED, :dead VARCHAR2  DEAD,
--        :failed VARCHAR2  FAILED, :requeued VARCHAR2  REQUEUED
-- returns: one row: last_message_id (NULL when PROC_STATE holds no final
--          status)
-- locks: none
SELECT MAX(F.LAST_ID) AS LAST_MESSAGE_ID
FROM (SELECT MAX(MESSAGE_ID) AS LAST_ID FROM PROC_STATE WHERE STATUS = :succeeded
      UNION ALL
      SELECT MAX(MESSAGE_ID) AS LAST_ID FROM PROC_STATE WHERE STATUS = :dead
      UNION ALL
      SELECT MAX(MESSAGE_ID) AS LAST_ID FROM PROC_STATE
      WHERE STATUS = :failed AND ERROR_KIND = :requeued) F
