-- name: upsert_order_evidence
-- Writes the order evidence of one operation day as the message being
-- applied left it, in that message's state transaction (so a count is
-- never lost or doubled by a crash). MERGE never updates OPERATION_DAY, the
-- column of its ON.
-- binds: :operation_day date, :snapshot_dttm date (station local),
--        :snapshot_message_id number(19), :newest_event_dttm date,
--        :newest_event_id number(19), :late_events number(19),
--        :last_late_event_id number(19), :late_event_after_id number(19),
--        :stale_snapshots number(19), :last_stale_snapshot_id number(19),
--        :stale_snapshot_over_id number(19), :updated_at date (UTC)
-- returns: nothing
-- locks: the inserted or updated ORDER_EVIDENCE row
MERGE INTO ORDER_EVIDENCE e
USING (SELECT :operation_day AS OPERATION_DAY FROM DUAL) s
ON (e.OPERATION_DAY = s.OPERATION_DAY)
WHEN MATCHED THEN UPDATE SET
    e.SNAPSHOT_DTTM = :snapshot_dttm,
    e.SNAPSHOT_MESSAGE_ID = :snapshot_message_id,
    e.NEWEST_EVENT_DTTM = :newest_event_dttm,
    e.NEWEST_EVENT_ID = :newest_event_id,
    e.LATE_EVENTS = :late_events,
    e.LAST_LATE_EVENT_ID = :last_late_event_id,
    e.LATE_EVENT_AFTER_ID = :late_event_after_id,
    e.STALE_SNAPSHOTS = :stale_snapshots,
    e.LAST_STALE_SNAPSHOT_ID = :last_stale_snapshot_id,
    e.STALE_SNAPSHOT_OVER_ID = :stale_snapshot_over_id,
    e.UPDATED_AT = :updated_at
WHEN NOT MATCHED THEN INSERT (OPERATION_DAY, SNAPSHOT_DTTM, SNAPSHOT_MESSAGE_ID,
    NEWEST_EVENT_DTTM, NEWEST_EVENT_ID, LATE_EVENTS, LAST_LATE_EVENT_ID,
    LATE_EVENT_AFTER_ID, STALE_SNAPSHOTS, LAST_STALE_SNAPSHOT_ID,
    STALE_SNAPSHOT_OVER_ID, UPDATED_AT)
VALUES (s.OPERATION_DAY, :snapshot_dttm, :snapshot_message_id, :newest_event_dttm,
    :newest_event_id, :late_events, :last_late_event_id, :late_event_after_id,
    :stale_snapshots, :last_stale_snapshot_id, :stale_snapshot_over_id, :updated_at)
