-- name: select_outbox_backlog
-- What the dispatcher has still to send, per outbox: how many rows and when
-- the oldest of them was registered (sent rows are deleted, so every row is
-- pending). Both aggregates walk the outboxes' pending indexes.
-- binds: none
-- returns: one row: state_events, state_oldest (UTC, NULL when none),
--          change_notices, change_oldest (UTC, NULL when none)
-- locks: none
SELECT (SELECT count(*) FROM kafka_schd WHERE sent_at IS NULL) AS state_events,
       (SELECT min(created_at) FROM kafka_schd WHERE sent_at IS NULL) AS state_oldest,
       (SELECT count(*) FROM kafka_msg WHERE sent_at IS NULL) AS change_notices,
       (SELECT min(created_at) FROM kafka_msg WHERE sent_at IS NULL) AS change_oldest
