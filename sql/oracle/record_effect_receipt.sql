-- name: record_effect_receipt
-- Stores the technical outcome of a grant (DESIGN §6.3): only while that
-- grant is the current one (same send token) and its outcome is still open,
-- so an old token never overwrites the receipt of a newer grant.
-- binds: :call_id number(19), :send_token varchar2, :status varchar2,
--        :remote_ref varchar2, :now timestamp (UTC),
--        :open_1, :open_2 varchar2  open statuses (DISPATCHED, UNKNOWN)
-- nonempty: :status  a CallStatus code
-- returns: nothing; row count 1 when stored, 0 when not
-- locks: the EFFECT_CALL row
UPDATE EFFECT_CALL
SET STATUS = :status,
    REMOTE_REF = :remote_ref,
    RECEIPT_AT = :now,
    UPDATED_AT = :now
WHERE CALL_ID = :call_id
  AND SEND_TOKEN = :send_token
  AND STATUS IN (:open_1, :open_2)
