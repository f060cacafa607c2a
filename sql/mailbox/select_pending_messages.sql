-- name: select_pending_messages
-- The head of the inbound queue: the lowest-id rows still pending (status is
-- the site's pending value and no processing date), in id order. A row that
-- commits late with a lower id is found by the next read.
-- binds: ? varchar  pending status (default VALID), ? bigint  limit
-- returns: CMINMSGS_ID, CMINMSGS_CLOB_MSG
-- locks: none (a consistent read)
SELECT CMINMSGS_ID, CMINMSGS_CLOB_MSG
FROM cminmsgs
WHERE CMINMSGS_STATUS = ?
  AND CMINMSGS_DATE_PROCESSED IS NULL
ORDER BY CMINMSGS_ID
LIMIT ?
