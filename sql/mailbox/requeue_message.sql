-- name: requeue_message
-- An operator's requeue (`flightstate dead requeue`), after PROC_STATE
-- recorded it: the row written back becomes pending again, so that the pump
-- applies it through the normal path and writes its new outcome back. A row
-- still pending (its earlier write-back not made yet) is left alone.
-- binds: ? varchar  pending status (default VALID), ? bigint  CMINMSGS_ID
-- returns: affected rows (1 = pending again, 0 = not written back yet, or gone)
-- locks: the CMINMSGS row
UPDATE cminmsgs
SET CMINMSGS_STATUS = ?,
    CMINMSGS_DATE_PROCESSED = NULL
WHERE CMINMSGS_ID = ?
  AND CMINMSGS_DATE_PROCESSED IS NOT NULL
