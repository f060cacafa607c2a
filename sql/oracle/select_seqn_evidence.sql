-- name: select_seqn_evidence
-- Reads what one inbound sender's SEQNs did so far (docs/open-questions.md,
-- inbound SEQN), to count the message being applied against it.
-- binds: :sender varchar2  META SNDR
-- returns: sender, last_seqn, last_message_id, messages, repeats, gaps,
--          missing, resets, unreadable, last_anomaly, last_anomaly_id
--          (no row: no message of that sender counted yet)
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT SENDER,
       LAST_SEQN,
       LAST_MESSAGE_ID,
       MESSAGES,
       REPEATS,
       GAPS,
       MISSING,
       RESETS,
       UNREADABLE,
       LAST_ANOMALY,
       LAST_ANOMALY_ID
FROM SEQN_EVIDENCE
WHERE SENDER = :sender
