-- name: write_back_message
-- The journaled write-back of one message (DESIGN §6): marks the row
-- processed with the status of its outcome. Guarded: a row already written
-- back is not touched again (zero rows = conflict). The processing time is the
-- mailbox server's clock, like AODB's own DATE_RECEIVED.
-- binds: ? varchar  status for the outcome (SUCCEEDED or DEAD value), ? bigint  CMINMSGS_ID
-- returns: affected rows (1 = written back, 0 = already processed or gone)
-- locks: the CMINMSGS row
UPDATE cminmsgs
SET CMINMSGS_DATE_PROCESSED = NOW(),
    CMINMSGS_STATUS = ?
WHERE CMINMSGS_ID = ?
  AND CMINMSGS_DATE_PROCESSED IS NULL
