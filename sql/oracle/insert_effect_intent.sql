-- name: insert_effect_intent
-- Records the intent of a call inside the business transaction that decides
-- it (DESIGN §6.1). CALL_ID was taken from EFFECT_CALL_SEQ first
-- (next_effect_call_id; 11g has no identity), so the statement has no
-- RETURNING: with RETURNING, OCI sends every bind at execute time, and the
-- CLOB payload with them.
-- A key already journaled fails this statement alone with ORA-00001 on
-- EFFECT_CALL_IDEM_KEY_UK (Oracle rolls back the statement, not the
-- transaction); the repository reads that as "already journaled" and leaves
-- the row as it is: its digest can never change, and the caller compares it.
-- The CLOB payload is the last bind: OCI wants long binds after the short
-- ones (ORA-24816 otherwise).
-- Empty texts are refused before the statement (store::refuse_empty): ''
-- is NULL in Oracle, and every text column here is NOT NULL.
-- binds: :call_id number(19) (from next_effect_call_id),
--        :idempotency_key varchar2(64), :scope varchar2, :step varchar2,
--        :sub_key varchar2, :call_kind varchar2, :target varchar2,
--        :payload_digest varchar2(64), :deadline_at timestamp (UTC, NULL = none),
--        :now timestamp (UTC), :payload clob
-- nonempty: :idempotency_key, :scope, :step, :sub_key, :call_kind, :target,
--           :payload_digest, :payload  refused empty first by store::nonempty
-- returns: nothing (one row; none when the key is journaled already)
-- locks: the new EFFECT_CALL row (the key's unique index entry)
INSERT INTO EFFECT_CALL (
    CALL_ID, IDEMPOTENCY_KEY, SCOPE, STEP, SUB_KEY, CALL_KIND, TARGET,
    PAYLOAD_DIGEST, DEADLINE_AT, CREATED_AT, UPDATED_AT, PAYLOAD
)
VALUES (
    :call_id, :idempotency_key, :scope, :step, :sub_key, :call_kind,
    :target, :payload_digest, :deadline_at, :now, :now, :payload
)
