-- name: select_order_evidence
-- Reads the order evidence of one operation day (docs/open-questions.md,
-- rule M), to count the message being applied against it.
-- binds: $1 date  operation_day
-- returns: operation_day, snapshot_dttm, snapshot_message_id,
--          newest_event_dttm, newest_event_id, late_events,
--          last_late_event_id, late_event_after_id, stale_snapshots,
--          last_stale_snapshot_id, stale_snapshot_over_id
--          (no row: nothing counted for that day yet)
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT operation_day,
       snapshot_dttm,
       snapshot_message_id,
       newest_event_dttm,
       newest_event_id,
       late_events,
       last_late_event_id,
       late_event_after_id,
       stale_snapshots,
       last_stale_snapshot_id,
       stale_snapshot_over_id
FROM order_evidence
WHERE operation_day = $1
