-- name: select_last_message_id
-- The highest CMINMSGS_ID: the idle pump's cheap look between two reads of
-- the head (`pump.arrival_poll_ms`). AODB numbers new rows upward
-- (AUTO_INCREMENT), so a row that arrived shows as a higher id; one read at
-- the end of the primary key, whatever the table holds, where a read of the
-- head looks through the pending rows.
-- binds: none
-- returns: one row: last_id (NULL when the table is empty)
-- locks: none (a consistent read)
SELECT MAX(CMINMSGS_ID) AS last_id
FROM cminmsgs
