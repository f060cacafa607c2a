-- name: select_blocked_head
-- The lowest message whose latest attempt failed on the infrastructure
-- (FAILED with INFRA or CONFLICT): the head of the queue, which waits for
-- it (docs/open-questions.md, head-of-queue limits). Walks
-- PROC_STATE_STATUS_IX forwards over the FAILED rows; 11g has no FETCH
-- FIRST, so ROWNUM limits the ordered inline view.
-- binds: :status varchar2  FAILED, :infra varchar2  INFRA,
--        :conflict varchar2  CONFLICT
-- returns: message_id, error_kind, error_text, attempts,
--          first_seen_at (UTC), updated_at (UTC) (no row: nothing blocks)
-- locks: none
SELECT MESSAGE_ID,
       ERROR_KIND,
       ERROR_TEXT,
       ATTEMPTS,
       FIRST_SEEN_AT,
       UPDATED_AT
FROM (
    SELECT MESSAGE_ID,
           ERROR_KIND,
           ERROR_TEXT,
           ATTEMPTS,
           FIRST_SEEN_AT,
           UPDATED_AT
    FROM PROC_STATE
    WHERE STATUS = :status
      AND ERROR_KIND IN (:infra, :conflict)
    ORDER BY MESSAGE_ID
)
WHERE ROWNUM <= 1
