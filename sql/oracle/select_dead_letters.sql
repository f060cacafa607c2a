-- name: select_dead_letters
-- The dead letters an operator looks at (`flightstate dead list`, and
-- `dead requeue` by filter), oldest id first: every message of one status,
-- optionally of one error kind, recorded since a time, whose error text
-- holds a text, recorded on one UTC day. Walks PROC_STATE_STATUS_IX; ROWNUM
-- outside the ordered inline view (11g has no FETCH FIRST).
-- binds: :status varchar2  status (DEAD), :error_kind varchar2  error kind or
--        NULL (any), :since timestamp  since (UTC) or NULL (any time),
--        :error_text varchar2  text the error text holds or NULL (any),
--        :day_start timestamp  the day's start (UTC) or NULL (any day),
--        :day_end timestamp  the next day's start (UTC) or NULL,
--        :max_rows number  how many
-- returns: message_id, status, error_kind, error_text, msg_type, msg_subtype,
--          attempts, first_seen_at, updated_at, requeue_count, requeued_by,
--          requeued_at
-- locks: none
SELECT message_id, status, error_kind, error_text, msg_type, msg_subtype,
       attempts, first_seen_at, updated_at, requeue_count, requeued_by,
       requeued_at
FROM (
    SELECT MESSAGE_ID AS message_id,
           STATUS AS status,
           ERROR_KIND AS error_kind,
           ERROR_TEXT AS error_text,
           MSG_TYPE AS msg_type,
           MSG_SUBTYPE AS msg_subtype,
           ATTEMPTS AS attempts,
           FIRST_SEEN_AT AS first_seen_at,
           UPDATED_AT AS updated_at,
           REQUEUE_COUNT AS requeue_count,
           REQUEUED_BY AS requeued_by,
           REQUEUED_AT AS requeued_at
    FROM PROC_STATE
    WHERE STATUS = :status
      AND (:error_kind IS NULL OR ERROR_KIND = :error_kind)
      AND (:since IS NULL OR UPDATED_AT >= :since)
      AND (:error_text IS NULL OR INSTR(ERROR_TEXT, :error_text) > 0)
      AND (:day_start IS NULL
           OR (UPDATED_AT >= :day_start AND UPDATED_AT < :day_end))
    ORDER BY MESSAGE_ID
)
WHERE ROWNUM <= :max_rows
