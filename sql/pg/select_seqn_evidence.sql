-- name: select_seqn_evidence
-- Reads what one inbound sender's SEQNs did so far (docs/open-questions.md,
-- inbound SEQN), to count the message being applied against it.
-- binds: $1 varchar  sender (META SNDR)
-- returns: sender, last_seqn, last_message_id, messages, repeats, gaps,
--          missing, resets, unreadable, last_anomaly, last_anomaly_id
--          (no row: no message of that sender counted yet)
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT sender,
       last_seqn,
       last_message_id,
       messages,
       repeats,
       gaps,
       missing,
       resets,
       unreadable,
       last_anomaly,
       last_anomaly_id
FROM seqn_evidence
WHERE sender = $1
