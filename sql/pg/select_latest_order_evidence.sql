-- name: select_latest_order_evidence
-- The order evidence of the latest operation days, newest day first (the
-- status page and metrics show it). Walks ORDER_EVIDENCE_PK backwards.
-- binds: $1 bigint  how many days
-- returns: the columns of select_order_evidence
-- locks: none
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
ORDER BY operation_day DESC
LIMIT $1
