-- name: delete_proc_states
-- Purges the processing records select_stale_proc_states chose, in the same
-- transaction; a record whose status changed since is left alone.
-- binds: :ids FLIGHTSTATE_ID_LIST  message ids, :status varchar2  status
--        purged (SUCCEEDED)
-- returns: nothing (the row count)
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the deleted PROC_STATE rows
DELETE FROM PROC_STATE
WHERE MESSAGE_ID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:ids AS FLIGHTSTATE_ID_LIST)) ids)
  AND STATUS = :status
