-- name: select_message
-- One inbound row as an operator looks at it (`flightstate dead show`): its
-- body and where it stands in the mailbox.
-- binds: ? bigint  CMINMSGS_ID
-- returns: CMINMSGS_CLOB_MSG, CMINMSGS_STATUS, CMINMSGS_DATE_RECEIVED,
--          CMINMSGS_DATE_PROCESSED; no row when it is gone
-- locks: none
SELECT CMINMSGS_CLOB_MSG,
       CMINMSGS_STATUS,
       CMINMSGS_DATE_RECEIVED,
       CMINMSGS_DATE_PROCESSED
FROM cminmsgs
WHERE CMINMSGS_ID = ?
