-- name: upsert_seqn_evidence
-- Writes one sender's SEQN evidence as the message being recorded left it,
-- in that message's transaction (so a count is never lost or doubled by a
-- crash).
-- binds: $1 varchar  sender, $2 varchar  last_seqn (as sent),
--        $3 bigint  last_message_id, $4 bigint  messages, $5 bigint  repeats,
--        $6 bigint  gaps, $7 bigint  missing, $8 bigint  resets,
--        $9 bigint  unreadable, $10 varchar  last_anomaly (or NULL),
--        $11 bigint  last_anomaly_id (or NULL), $12 timestamp  now (UTC)
-- returns: nothing
-- locks: the inserted or updated SEQN_EVIDENCE row
INSERT INTO seqn_evidence (sender, last_seqn, last_message_id, messages, repeats, gaps,
                           missing, resets, unreadable, last_anomaly, last_anomaly_id,
                           updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
ON CONFLICT (sender) DO UPDATE
SET last_seqn = excluded.last_seqn,
    last_message_id = excluded.last_message_id,
    messages = excluded.messages,
    repeats = excluded.repeats,
    gaps = excluded.gaps,
    missing = excluded.missing,
    resets = excluded.resets,
    unreadable = excluded.unreadable,
    last_anomaly = excluded.last_anomaly,
    last_anomaly_id = excluded.last_anomaly_id,
    updated_at = excluded.updated_at
