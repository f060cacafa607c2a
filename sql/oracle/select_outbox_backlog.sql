-- name: select_outbox_backlog
-- What the dispatcher has still to send, per outbox: how many rows and when
-- the oldest of them was registered (sent rows are deleted, so every row is
-- pending).
-- binds: none
-- returns: one row: state_events, state_oldest (UTC, NULL when none),
--          change_notices, change_oldest (UTC, NULL when none)
-- locks: none
SELECT (SELECT COUNT(*) FROM KAFKA_SCHD WHERE SENT_AT IS NULL) AS STATE_EVENTS,
       (SELECT MIN(CREATED_AT) FROM KAFKA_SCHD WHERE SENT_AT IS NULL) AS STATE_OLDEST,
       (SELECT COUNT(*) FROM KAFKA_MSG WHERE SENT_AT IS NULL) AS CHANGE_NOTICES,
       (SELECT MIN(CREATED_AT) FROM KAFKA_MSG WHERE SENT_AT IS NULL) AS CHANGE_OLDEST
FROM DUAL
