-- name: select_catch_up_messages
-- The rows a catch-up applies again, in id order, a page at a time: in the
-- lost tail's id range, those flightstate wrote back (the site's succeeded
-- and dead values, with a processing date) and those still pending (their
-- write-back was lost with the commits, or never made), as the pump met
-- them. Rows with any other status (another reader's) are left out. Each
-- row's age is told as select_pending_messages tells it.
-- binds: ? bigint  lowest id excluded (the last row applied),
--        ? bigint  highest id included (the tail's last),
--        ? varchar  succeeded status, ? varchar  dead status,
--        ? varchar  pending status (default VALID), ? bigint  limit
-- returns: CMINMSGS_ID, CMINMSGS_CLOB_MSG, processed (1 when written back),
--          age_micros (microseconds since CMINMSGS_DATE_RECEIVED; NULL when
--          it has none)
-- locks: none (a consistent read)
SELECT CMINMSGS_ID,
       CMINMSGS_CLOB_MSG,
       CMINMSGS_DATE_PROCESSED IS NOT NULL AS processed,
       TIMESTAMPDIFF(MICROSECOND, CMINMSGS_DATE_RECEIVED, NOW(6)) AS age_micros
FROM cminmsgs
WHERE CMINMSGS_ID > ?
  AND CMINMSGS_ID <= ?
  AND ((CMINMSGS_DATE_PROCESSED IS NOT NULL AND CMINMSGS_STATUS IN (?, ?))
       OR (CMINMSGS_DATE_PROCESSED IS NULL AND CMINMSGS_STATUS = ?))
ORDER BY CMINMSGS_ID
LIMIT ?
