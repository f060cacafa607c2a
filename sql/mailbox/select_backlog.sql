-- name: select_backlog
-- How far behind the pump is: the pending rows of the inbound queue (status is
-- the site's pending value and no processing date), the id at its head, and
-- how long the oldest of them has waited, by the mailbox server's own clock
-- (the clock that stamped CMINMSGS_DATE_RECEIVED). For the status page, the
-- metrics and `flightstate status`; never used to pick work.
-- binds: ? varchar  pending status (default VALID)
-- returns: one row: pending (count), head_id (NULL when none),
--          oldest_age_secs (NULL when none or no receive date)
-- locks: none (a consistent read)
SELECT COUNT(*) AS pending,
       MIN(CMINMSGS_ID) AS head_id,
       TIMESTAMPDIFF(SECOND, MIN(CMINMSGS_DATE_RECEIVED), NOW()) AS oldest_age_secs
FROM cminmsgs
WHERE CMINMSGS_STATUS = ?
  AND CMINMSGS_DATE_PROCESSED IS NULL
