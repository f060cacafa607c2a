-- name: delete_proc_states
-- Purges the processing records select_stale_proc_states chose, in the same
-- transaction; a record whose status changed since is left alone.
-- binds: $1 bigint[]  message_id, $2 varchar  status purged (SUCCEEDED)
-- returns: nothing (the row count)
-- locks: the deleted PROC_STATE rows
DELETE FROM proc_state
WHERE message_id = ANY ($1)
  AND status = $2
