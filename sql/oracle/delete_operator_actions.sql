-- name: delete_operator_actions
-- Removes the old actions select_old_operator_actions chose, in the same
-- transaction; repeats the cutoff, so that nothing newer goes.
-- binds: :ids FLIGHTSTATE_ID_LIST  action ids, :cutoff timestamp  cutoff (UTC)
-- returns: nothing (the row count)
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the deleted OPERATOR_ACTION rows
DELETE FROM OPERATOR_ACTION
WHERE ACTION_ID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:ids AS FLIGHTSTATE_ID_LIST)) ids)
  AND TAKEN_AT < :cutoff
