-- name: select_order_evidence
-- Reads the order evidence of one operation day (docs/open-questions.md,
-- rule M), to count the message being applied against it.
-- binds: :operation_day date
-- returns: operation_day, snapshot_dttm, snapshot_message_id,
--          newest_event_dttm, newest_event_id, late_events,
--          last_late_event_id, late_event_after_id, stale_snapshots,
--          last_stale_snapshot_id, stale_snapshot_over_id
--          (no row: nothing counted for that day yet)
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT OPERATION_DAY,
       SNAPSHOT_DTTM,
       SNAPSHOT_MESSAGE_ID,
       NEWEST_EVENT_DTTM,
       NEWEST_EVENT_ID,
       LATE_EVENTS,
       LAST_LATE_EVENT_ID,
       LATE_EVENT_AFTER_ID,
       STALE_SNAPSHOTS,
       LAST_STALE_SNAPSHOT_ID,
       STALE_SNAPSHOT_OVER_ID
FROM ORDER_EVIDENCE
WHERE OPERATION_DAY = :operation_day
