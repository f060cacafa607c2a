-- The status page's charts (docs/api.md, "The last hours"): the outcomes PROC_STATE recorded
-- in the last 6 or 24 hours, read every refresh by `select_proc_minutes`, a range on
-- PROC_STATE.UPDATED_AT that without this index reads the whole table.

CREATE INDEX PROC_STATE_UPDATED_IX ON PROC_STATE (UPDATED_AT);
