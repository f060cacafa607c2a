-- name: select_pending_messages
-- The head of the inbound queue: the lowest-id rows still pending (status is
-- the site's pending value and no processing date), in id order. A row that
-- commits late with a lower id is found by the next read. Each row's age
-- (how long ago it was received) is told by the mailbox server's own clock,
-- the one whose NOW() stamps CMINMSGS_DATE_RECEIVED, so that the pump can
-- put the receipt on its own clock whatever the server's time zone or skew.
-- binds: ? varchar  pending status (default VALID), ? bigint  limit
-- returns: CMINMSGS_ID, CMINMSGS_CLOB_MSG, age_micros (microseconds since
--          CMINMSGS_DATE_RECEIVED; NULL when it has none)
-- locks: none (a consistent read)
SELECT CMINMSGS_ID,
       CMINMSGS_CLOB_MSG,
       TIMESTAMPDIFF(MICROSECOND, CMINMSGS_DATE_RECEIVED, NOW(6)) AS age_micros
FROM cminmsgs
WHERE CMINMSGS_STATUS = ?
  AND CMINMSGS_DATE_PROCESSED IS NULL
ORDER BY CMINMSGS_ID
LIMIT ?
