-- name: delete_superseded_state_events
-- `flightstate resync`: settles the state events that were pending when the
-- resync began, oldest first, a batch at a time. They came back with the
-- restored database and announce versions below what the state topic holds;
-- the resync sends every flight's current state at a version above the
-- topic's instead, so they are done without being sent (the outbox holds
-- pending rows only). A row another transaction holds (a dispatcher's pass
-- begun before the resync took the lease) is waited for by the DELETE. The
-- CASE expression is KAFKA_SCHD_PENDING_IX's (function-based: 11g has no
-- partial index); 11g has no FETCH FIRST, so ROWNUM limits the ordered view.
-- binds: :row_limit number  the most rows to settle
-- returns: nothing (the number of rows settled; 0 when none is left)
-- locks: the deleted KAFKA_SCHD rows
DELETE FROM KAFKA_SCHD
WHERE EVENT_ID IN (
    SELECT head.EVENT_ID
    FROM (
        SELECT (CASE WHEN p.SENT_AT IS NULL THEN p.EVENT_ID END) AS EVENT_ID
        FROM KAFKA_SCHD p
        WHERE (CASE WHEN p.SENT_AT IS NULL THEN p.EVENT_ID END) IS NOT NULL
        ORDER BY (CASE WHEN p.SENT_AT IS NULL THEN p.EVENT_ID END)
    ) head
    WHERE ROWNUM <= :row_limit)
