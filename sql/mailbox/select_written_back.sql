-- name: select_written_back
-- The rows of the inbound queue in an id range that carry one of the two
-- statuses flightstate writes back (the site's succeeded and dead values)
-- and a processing date: how many, the first and the last. Above the last
-- message the state database holds as final, these are the lost tail of a
-- state database that lost its last commits (docs/operations.md, "After a
-- failover"). Rows with any other status (another reader's) are not
-- counted. Walks the primary key over the range only.
-- binds: ? bigint  lowest id excluded (the state database's last final
--        message), ? bigint  highest id included,
--        ? varchar  succeeded status (default PROCESSED),
--        ? varchar  dead status (default DEAD)
-- returns: one row: written_back (count), first_id, last_id (NULL when none)
-- locks: none (a consistent read)
SELECT COUNT(*) AS written_back,
       MIN(CMINMSGS_ID) AS first_id,
       MAX(CMINMSGS_ID) AS last_id
FROM cminmsgs
WHERE CMINMSGS_ID > ?
  AND CMINMSGS_ID <= ?
  AND CMINMSGS_DATE_PROCESSED IS NOT NULL
  AND CMINMSGS_STATUS IN (?, ?)
