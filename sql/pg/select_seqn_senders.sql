-- name: select_seqn_senders
-- Every inbound sender's SEQN evidence, by sender (the status page and
-- metrics show it; a site has a handful of senders).
-- binds: $1 bigint  how many senders at most
-- returns: the columns of select_seqn_evidence
-- locks: none
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
ORDER BY sender
LIMIT $1
