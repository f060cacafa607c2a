-- name: count_pending_events
-- How many outbox rows are still to send, per outbox (for `dispatch
-- --until-idle` and operations).
-- binds: none
-- returns: state_events, change_notices
-- locks: none
SELECT (SELECT count(*) FROM kafka_schd WHERE sent_at IS NULL) AS state_events,
       (SELECT count(*) FROM kafka_msg WHERE sent_at IS NULL) AS change_notices
