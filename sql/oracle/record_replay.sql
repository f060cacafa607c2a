-- name: record_replay
-- An operator's replay (`flightstate replay`), in the replay's own state
-- transaction, after the snapshot was applied again and its outcome recorded:
-- counts the replay on the message's row and records who, when and under
-- which policy. Only a SUCCEEDED message is counted.
-- binds: :message_id number(19), :replayed_by varchar2  who,
--        :now timestamp (UTC), :policy varchar2  the policy as given,
--        :succeeded varchar2  status replayed (SUCCEEDED)
-- returns: the number of rows updated (1; 0 when the message is not SUCCEEDED)
-- locks: the message's PROC_STATE row
UPDATE PROC_STATE
SET REPLAY_COUNT = REPLAY_COUNT + 1,
    REPLAYED_BY = :replayed_by,
    REPLAYED_AT = :now,
    REPLAY_POLICY = :policy
WHERE MESSAGE_ID = :message_id
  AND STATUS = :succeeded
