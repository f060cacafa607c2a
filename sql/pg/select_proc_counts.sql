-- name: select_proc_counts
-- How many messages PROC_STATE records, by status, error kind and message
-- kind (META TYPE / STYP): the applied messages by kind, the DEAD and the
-- UNSUPPORTED counts of the metrics and the status page. Counts the whole
-- table (one row per message ever tried): its cost grows with PROC_STATE
-- until lifecycle clean-up trims it.
-- binds: none
-- returns: status, error_kind, msg_type, msg_subtype (each may be NULL but
--          status), messages
-- locks: none
SELECT status,
       error_kind,
       msg_type,
       msg_subtype,
       count(*) AS messages
FROM proc_state
GROUP BY status, error_kind, msg_type, msg_subtype
ORDER BY status, error_kind, msg_type, msg_subtype
