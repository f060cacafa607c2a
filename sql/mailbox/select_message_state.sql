-- name: select_message_state
-- Reads a row back to resolve a write-back whose outcome is not known: is
-- it processed, and with which status?
-- binds: ? bigint  CMINMSGS_ID
-- returns: CMINMSGS_STATUS, processed (1 when CMINMSGS_DATE_PROCESSED is set)
-- locks: none
SELECT CMINMSGS_STATUS, CMINMSGS_DATE_PROCESSED IS NOT NULL AS processed
FROM cminmsgs
WHERE CMINMSGS_ID = ?
