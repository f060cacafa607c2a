-- name: upsert_version_floors
-- Records the tombstone versions of deleted flights, in the transaction that
-- deletes them: a flight created again under the same FLID continues above
-- its tombstone. A floor never goes down. One batch entry per flight (array
-- DML); MERGE never updates FLID, the column of its ON.
-- binds: :deleted_at timestamp (UTC); per batch entry :flid number(19),
--        :state_version number(19)  tombstone version
-- returns: nothing
-- locks: the inserted or updated FLIGHT_VERSION_FLOOR rows
MERGE INTO FLIGHT_VERSION_FLOOR v
USING (
    SELECT :flid AS FLID, :state_version AS STATE_VERSION, :deleted_at AS DELETED_AT
    FROM DUAL
) s
ON (v.FLID = s.FLID)
WHEN MATCHED THEN UPDATE SET
    v.STATE_VERSION = GREATEST(v.STATE_VERSION, s.STATE_VERSION),
    v.DELETED_AT = s.DELETED_AT
WHEN NOT MATCHED THEN INSERT (FLID, STATE_VERSION, DELETED_AT)
VALUES (s.FLID, s.STATE_VERSION, s.DELETED_AT)
