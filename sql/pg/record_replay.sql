-- name: record_replay
-- An operator's replay (`flightstate replay`), in the replay's own state
-- transaction, after the snapshot was applied again and its outcome recorded:
-- counts the replay on the message's row and records who, when and under
-- which policy. Only a SUCCEEDED message is counted.
-- binds: $1 bigint  message_id, $2 varchar  replayed by,
--        $3 timestamp  now (UTC), $4 varchar  the policy as given,
--        $5 varchar  status replayed (SUCCEEDED)
-- returns: the number of rows updated (1; 0 when the message is not SUCCEEDED)
-- locks: the message's PROC_STATE row
UPDATE proc_state
SET replay_count = replay_count + 1,
    replayed_by = $2,
    replayed_at = $3,
    replay_policy = $4
WHERE message_id = $1
  AND status = $5
