-- name: select_seqn_senders
-- Every inbound sender's SEQN evidence, by sender (the status page and
-- metrics show it; a site has a handful of senders). 11g has no FETCH
-- FIRST, so ROWNUM limits the ordered inline view.
-- binds: :how_many number  how many senders at most
-- returns: the columns of select_seqn_evidence
-- locks: none
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
FROM (
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
    ORDER BY SENDER
)
WHERE ROWNUM <= :how_many
