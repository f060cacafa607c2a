-- name: select_known_statuses
-- Whether the inbound queue holds any row, and any with one of the statuses
-- this site is configured with, for `flightstate doctor`: rows that all
-- carry other statuses mean the pending status is not the site's, and the
-- pump would never see a message. Each EXISTS stops at its first row.
-- binds: ? varchar  pending status (default VALID)
--        ? varchar  succeeded status (default PROCESSED)
--        ? varchar  dead status (default DEAD)
-- returns: one row: any_row (0 or 1), known_status (0 or 1)
-- locks: none (a consistent read)
SELECT EXISTS (SELECT 1 FROM cminmsgs) AS any_row,
       EXISTS (
         SELECT 1 FROM cminmsgs WHERE CMINMSGS_STATUS IN (?, ?, ?)
       ) AS known_status
