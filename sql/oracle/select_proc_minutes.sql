-- name: select_proc_minutes
-- The messages whose latest outcome PROC_STATE recorded since a time,
-- counted per minute, status and message kind: the status page's charts of
-- messages applied, dead and held as they came. UPDATED_AT is when the
-- outcome was recorded, so a message retried and applied later counts in
-- the minute it was applied. Reads the last hours' rows of PROC_STATE by
-- PROC_STATE_UPDATED_IX (V017), whatever the table holds; the result is
-- bounded by minutes × statuses × kinds. The minute is the
-- day plus whole minutes (1440 a day), computed once in the inner query so
-- the GROUP BY names a column.
-- binds: :since TIMESTAMP  since (UTC)
-- returns: MINUTE (UTC), STATUS, MSG_TYPE, MSG_SUBTYPE (may be NULL),
--          MESSAGES; oldest minute first
-- locks: none
SELECT MINUTE,
       STATUS,
       MSG_TYPE,
       MSG_SUBTYPE,
       COUNT(*) AS MESSAGES
FROM (
    SELECT TRUNC(CAST(UPDATED_AT AS DATE))
               + FLOOR((CAST(UPDATED_AT AS DATE) - TRUNC(CAST(UPDATED_AT AS DATE))) * 1440)
               / 1440 AS MINUTE,
           STATUS,
           MSG_TYPE,
           MSG_SUBTYPE
    FROM PROC_STATE
    WHERE UPDATED_AT >= :since
)
GROUP BY MINUTE, STATUS, MSG_TYPE, MSG_SUBTYPE
ORDER BY MINUTE, STATUS, MSG_TYPE, MSG_SUBTYPE
