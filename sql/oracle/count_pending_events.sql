-- name: count_pending_events
-- How many outbox rows are still to send, per outbox (for `dispatch
-- --until-idle` and operations). COUNT of the CASE expression of the
-- function-based pending indexes: an index fast full scan, not the table.
-- binds: none
-- returns: state_events, change_notices
-- locks: none
SELECT (SELECT COUNT(CASE WHEN SENT_AT IS NULL THEN EVENT_ID END) FROM KAFKA_SCHD) AS STATE_EVENTS,
       (SELECT COUNT(CASE WHEN SENT_AT IS NULL THEN EVENT_ID END) FROM KAFKA_MSG) AS CHANGE_NOTICES
FROM DUAL
