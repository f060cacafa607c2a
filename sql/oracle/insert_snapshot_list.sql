-- name: insert_snapshot_list
-- Writes a day's new snapshot list: one batch entry per FLID (array DML, one
-- round trip per batch; 11g has no UNNEST).
-- binds (per batch entry): :operation_day date, :flid number(19)
-- returns: nothing
-- locks: the inserted rows
INSERT INTO SCHD_GEN_FLID (OPERATION_DAY, FLID)
VALUES (:operation_day, :flid)
