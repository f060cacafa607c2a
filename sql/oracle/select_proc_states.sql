-- name: select_proc_states
-- Reads what is recorded about many messages at once (a group the pump
-- commits together, or one message).
-- binds: :ids FLIGHTSTATE_ID_LIST  message ids (distinct)
-- returns: message_id, identity_key, status, error_kind, error_text, attempts
--          of each message among :ids that has a row
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none
SELECT /*+ LEADING(ids) USE_NL(p) CARDINALITY(ids 100) */
    p.MESSAGE_ID,
    p.IDENTITY_KEY,
    p.STATUS,
    p.ERROR_KIND,
    p.ERROR_TEXT,
    p.ATTEMPTS
FROM TABLE(CAST(:ids AS FLIGHTSTATE_ID_LIST)) ids,
    PROC_STATE p
WHERE p.MESSAGE_ID = ids.COLUMN_VALUE
