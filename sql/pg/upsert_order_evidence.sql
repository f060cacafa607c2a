-- name: upsert_order_evidence
-- Writes the order evidence of one operation day as the message being
-- applied left it, in that message's state transaction (so a count is
-- never lost or doubled by a crash).
-- binds: $1 date  operation_day, $2 timestamp  snapshot_dttm (station local),
--        $3 bigint  snapshot_message_id, $4 timestamp  newest_event_dttm,
--        $5 bigint  newest_event_id, $6 bigint  late_events,
--        $7 bigint  last_late_event_id, $8 bigint  late_event_after_id,
--        $9 bigint  stale_snapshots, $10 bigint  last_stale_snapshot_id,
--        $11 bigint  stale_snapshot_over_id, $12 timestamp  now (UTC)
-- returns: nothing
-- locks: the inserted or updated ORDER_EVIDENCE row
INSERT INTO order_evidence (operation_day, snapshot_dttm, snapshot_message_id,
                            newest_event_dttm, newest_event_id, late_events,
                            last_late_event_id, late_event_after_id, stale_snapshots,
                            last_stale_snapshot_id, stale_snapshot_over_id, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
ON CONFLICT (operation_day) DO UPDATE
SET snapshot_dttm = excluded.snapshot_dttm,
    snapshot_message_id = excluded.snapshot_message_id,
    newest_event_dttm = excluded.newest_event_dttm,
    newest_event_id = excluded.newest_event_id,
    late_events = excluded.late_events,
    last_late_event_id = excluded.last_late_event_id,
    late_event_after_id = excluded.late_event_after_id,
    stale_snapshots = excluded.stale_snapshots,
    last_stale_snapshot_id = excluded.last_stale_snapshot_id,
    stale_snapshot_over_id = excluded.stale_snapshot_over_id,
    updated_at = excluded.updated_at
