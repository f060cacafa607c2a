-- name: select_watermark
-- How far what the pipeline applied has reached the topics, for the
-- heartbeat (docs/kafka.md, "Heartbeats"): the highest message id PROC_STATE
-- holds with a final status (SUCCEEDED or DEAD) and when it got it, and the
-- lowest message id of a row still pending in each outbox. A row leaves the
-- outbox only once the broker confirmed it, so every change of every message
-- below the lowest pending one is on the topics. The final statuses are one
-- MIN/MAX step of PROC_STATE_STATUS_IX each; the outboxes hold pending rows
-- only, so their minimums read what is still to send.
-- binds: :succeeded VARCHAR2  SUCCEEDED, :dead VARCHAR2  DEAD
-- returns: one row: last_message_id (NULL when PROC_STATE holds no final
--          status), last_applied_at (UTC, NULL then), state_lowest_pending,
--          change_lowest_pending (NULL when that outbox is empty)
-- locks: none
SELECT F.LAST_MESSAGE_ID,
       (SELECT P.UPDATED_AT FROM PROC_STATE P WHERE P.MESSAGE_ID = F.LAST_MESSAGE_ID)
           AS LAST_APPLIED_AT,
       (SELECT MIN(S.MESSAGE_ID) FROM KAFKA_SCHD S WHERE S.SENT_AT IS NULL)
           AS STATE_LOWEST_PENDING,
       (SELECT MIN(M.MESSAGE_ID) FROM KAFKA_MSG M WHERE M.SENT_AT IS NULL)
           AS CHANGE_LOWEST_PENDING
FROM (SELECT MAX(L.LAST_ID) AS LAST_MESSAGE_ID
      FROM (SELECT MAX(MESSAGE_ID) AS LAST_ID FROM PROC_STATE WHERE STATUS = :succeeded
            UNION ALL
            SELECT MAX(MESSAGE_ID) AS LAST_ID FROM PROC_STATE WHERE STATUS = :dead) L) F
