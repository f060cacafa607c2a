-- name: select_latest_by_status
-- The latest messages of one status (the status page lists the latest DEAD
-- ones with their reasons), newest id first. Walks PROC_STATE_STATUS_IX
-- backwards: as cheap with a million rows as with ten. 11g has no FETCH
-- FIRST, so ROWNUM limits the ordered inline view.
-- binds: :status VARCHAR2  status (DEAD), :how_many NUMBER  how many
-- returns: message_id, error_kind, error_text, msg_type, msg_subtype,
--          attempts, updated_at (UTC)
-- locks: none
SELECT MESSAGE_ID,
       ERROR_KIND,
       ERROR_TEXT,
       MSG_TYPE,
       MSG_SUBTYPE,
       ATTEMPTS,
       UPDATED_AT
FROM (
    SELECT MESSAGE_ID,
           ERROR_KIND,
           ERROR_TEXT,
           MSG_TYPE,
           MSG_SUBTYPE,
           ATTEMPTS,
           UPDATED_AT
    FROM PROC_STATE
    WHERE STATUS = :status
    ORDER BY MESSAGE_ID DESC
)
WHERE ROWNUM <= :how_many
