-- name: select_latest_order_evidence
-- The order evidence of the latest operation days, newest day first (the
-- status page and metrics show it). Walks ORDER_EVIDENCE_PK backwards; 11g
-- has no FETCH FIRST, so ROWNUM limits the ordered inline view.
-- binds: :how_many number  how many days
-- returns: the columns of select_order_evidence
-- locks: none
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
FROM (
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
    ORDER BY OPERATION_DAY DESC
)
WHERE ROWNUM <= :how_many
