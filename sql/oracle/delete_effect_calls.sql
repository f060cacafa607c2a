-- name: delete_effect_calls
-- Purges the settled calls select_settled_effect_calls chose, in the same
-- transaction; a call that is not settled is left alone.
-- binds: :ids FLIGHTSTATE_ID_LIST  call ids, :accepted varchar2,
--        :rejected varchar2, :conflict varchar2  the settled statuses
-- returns: nothing (the row count)
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: the deleted EFFECT_CALL rows
DELETE FROM EFFECT_CALL
WHERE CALL_ID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:ids AS FLIGHTSTATE_ID_LIST)) ids)
  AND STATUS IN (:accepted, :rejected, :conflict)
