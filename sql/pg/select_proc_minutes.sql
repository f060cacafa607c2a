-- name: select_proc_minutes
-- The messages whose latest outcome PROC_STATE recorded since a time,
-- counted per minute, status and message kind: the status page's charts of
-- messages applied, dead and held as they came. UPDATED_AT is when the
-- outcome was recorded, so a message retried and applied later counts in
-- the minute it was applied. Reads the last hours' rows of PROC_STATE by
-- PROC_STATE_UPDATED_IX (migration 000017), whatever the table holds; the
-- result is bounded by minutes × statuses × kinds. The minute is the
-- time less its seconds (no quoted unit: the house's no-literal rule),
-- computed once in the inner query so the GROUP BY names a column.
-- binds: $1 timestamp  since (UTC)
-- returns: minute (UTC), status, msg_type, msg_subtype (may be NULL),
--          messages; oldest minute first
-- locks: none
SELECT minute,
       status,
       msg_type,
       msg_subtype,
       count(*) AS messages
FROM (
    SELECT updated_at - make_interval(secs => extract(SECOND FROM updated_at)::float8) AS minute,
           status,
           msg_type,
           msg_subtype
    FROM proc_state
    WHERE updated_at >= $1
) AS outcomes
GROUP BY minute, status, msg_type, msg_subtype
ORDER BY minute, status, msg_type, msg_subtype
