-- name: record_outcomes
-- Records the outcome of one processing attempt of each of many messages (a
-- group the pump commits together, or one message), executed as batch DML
-- with one row of binds per message: a message's first attempt inserts its
-- row, later ones update it and count the attempt. The identity key is never
-- changed once recorded, nor is the time the mailbox received the message
-- (the first attempt that knew it recorded it; a tool's attempt knows none),
-- and MERGE never updates MESSAGE_ID, the column of its ON. The message ids
-- are distinct.
-- binds (per row): :message_id number(19), :identity_key varchar2, :status varchar2,
--        :error_kind varchar2, :error_text varchar2, :msg_type varchar2,
--        :msg_subtype varchar2, :next_attempt_at timestamp, :now timestamp (UTC),
--        :received_at timestamp (UTC, NULL when not known)
-- nonempty: :identity_key  a SHA-256 in hex (pipeline::identity_key)
-- nonempty: :status  a ProcStatus code
-- returns: nothing
-- locks: the PROC_STATE rows
MERGE INTO PROC_STATE p
USING (
    SELECT
        :message_id AS MESSAGE_ID,
        :identity_key AS IDENTITY_KEY,
        :status AS STATUS,
        :error_kind AS ERROR_KIND,
        :error_text AS ERROR_TEXT,
        :msg_type AS MSG_TYPE,
        :msg_subtype AS MSG_SUBTYPE,
        :next_attempt_at AS NEXT_ATTEMPT_AT,
        :now AS NOW_AT,
        :received_at AS RECEIVED_AT
    FROM DUAL
) s
ON (p.MESSAGE_ID = s.MESSAGE_ID)
WHEN MATCHED THEN UPDATE SET
    p.STATUS = s.STATUS,
    p.ERROR_KIND = s.ERROR_KIND,
    p.ERROR_TEXT = s.ERROR_TEXT,
    p.ATTEMPTS = p.ATTEMPTS + 1,
    p.MSG_TYPE = s.MSG_TYPE,
    p.MSG_SUBTYPE = s.MSG_SUBTYPE,
    p.NEXT_ATTEMPT_AT = s.NEXT_ATTEMPT_AT,
    p.UPDATED_AT = s.NOW_AT,
    p.RECEIVED_AT = NVL(p.RECEIVED_AT, s.RECEIVED_AT)
WHEN NOT MATCHED THEN INSERT (
    MESSAGE_ID, IDENTITY_KEY, STATUS, ERROR_KIND, ERROR_TEXT, ATTEMPTS,
    MSG_TYPE, MSG_SUBTYPE, NEXT_ATTEMPT_AT, FIRST_SEEN_AT, UPDATED_AT, RECEIVED_AT
)
VALUES (
    s.MESSAGE_ID, s.IDENTITY_KEY, s.STATUS, s.ERROR_KIND, s.ERROR_TEXT, 1,
    s.MSG_TYPE, s.MSG_SUBTYPE, s.NEXT_ATTEMPT_AT, s.NOW_AT, s.NOW_AT, s.RECEIVED_AT
)
