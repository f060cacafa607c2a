-- name: upsert_seqn_evidence
-- Writes one sender's SEQN evidence as the message being recorded left it,
-- in that message's transaction (so a count is never lost or doubled by a
-- crash). MERGE never updates SENDER, the column of its ON.
-- binds: :sender varchar2, :last_seqn varchar2 (as sent),
--        :last_message_id number(19), :messages number(19),
--        :repeats number(19), :gaps number(19), :missing number(19),
--        :resets number(19), :unreadable number(19),
--        :last_anomaly varchar2 (or NULL), :last_anomaly_id number(19) (or NULL),
--        :updated_at date (UTC)
-- nonempty: :sender  META SNDR, which the parser refuses missing or empty
-- nonempty: :last_seqn  META SEQN, which the parser refuses missing or empty
-- returns: nothing
-- locks: the inserted or updated SEQN_EVIDENCE row
MERGE INTO SEQN_EVIDENCE e
USING (SELECT :sender AS SENDER FROM DUAL) s
ON (e.SENDER = s.SENDER)
WHEN MATCHED THEN UPDATE SET
    e.LAST_SEQN = :last_seqn,
    e.LAST_MESSAGE_ID = :last_message_id,
    e.MESSAGES = :messages,
    e.REPEATS = :repeats,
    e.GAPS = :gaps,
    e.MISSING = :missing,
    e.RESETS = :resets,
    e.UNREADABLE = :unreadable,
    e.LAST_ANOMALY = :last_anomaly,
    e.LAST_ANOMALY_ID = :last_anomaly_id,
    e.UPDATED_AT = :updated_at
WHEN NOT MATCHED THEN INSERT (SENDER, LAST_SEQN, LAST_MESSAGE_ID, MESSAGES, REPEATS, GAPS,
    MISSING, RESETS, UNREADABLE, LAST_ANOMALY, LAST_ANOMALY_ID, UPDATED_AT)
VALUES (s.SENDER, :last_seqn, :last_message_id, :messages, :repeats, :gaps, :missing,
    :resets, :unreadable, :last_anomaly, :last_anomaly_id, :updated_at)
