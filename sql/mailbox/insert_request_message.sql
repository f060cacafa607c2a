-- name: insert_request_message
-- The journaled write of one request message into AODB's outbound table
-- (DESIGN §6, PROTOCOL §1.2), with the values AODB's peers write: the
-- mailbox server's clock for DATE_INSERTED, 0 for the flags, NULL for the
-- group and acknowledgement columns. Guarded: nothing is inserted when the
-- row is there already (same ROUTINGID and message text, whose SEQN and DTTM
-- make it ours alone), so a call granted again after it was found not sent
-- can never write a second row. Run in a transaction of its own; the guard's
-- read takes InnoDB's shared next-key locks on what it scans, so two writes
-- of the same message cannot both pass it.
-- binds: ? mediumtext  the message, ? varchar(23)  ROUTINGID,
--        ? varchar(23)  ROUTINGID again, ? mediumtext  the message again
-- returns: affected rows (1 = inserted, 0 = the row was there already)
-- locks: the new COUTMSGS row; shared next-key locks on the scanned rows
INSERT INTO coutmsgs (
  COUTMSGS_CLOB_MSG, COUTMSGS_DATE_INSERTED, ROUTINGID,
  COUTMSGS_TRUEFALS_GROUP, COUTMSGS_FINAL_GROUP_IND, COUTMSGS_ACK_REQD,
  COUTMSGS_ACK_RESEND_TIMES, COUTMSGS_ENCRYPT, COUTMSGS_ERROR
)
SELECT ?, NOW(), ?, 0, 0, 0, 0, 0, 0
FROM DUAL
WHERE NOT EXISTS (
  SELECT 1 FROM coutmsgs WHERE ROUTINGID = ? AND COUTMSGS_CLOB_MSG = ?
)
