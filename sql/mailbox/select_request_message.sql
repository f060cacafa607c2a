-- name: select_request_message
-- Reads the outbound table back for one request message (DESIGN §6.4): the
-- row of a call whose outcome is open, found by ROUTINGID and the message
-- text (whose SEQN and DTTM make it ours alone). COUTMSGS has no index but
-- its key; it holds a few request rows a day.
-- binds: ? varchar(23)  ROUTINGID, ? mediumtext  the message
-- returns: COUTMSGS_ID of the lowest such row; no row when it is not there
-- locks: none
SELECT MIN(COUTMSGS_ID)
FROM coutmsgs
WHERE ROUTINGID = ?
  AND COUTMSGS_CLOB_MSG = ?
