-- name: decide_held_message
-- An operator's decision on a snapshot the mass-delete guard holds
-- (`flightstate release` / `flightstate reject`): only a HELD message still
-- waiting for a decision (error kind MASS_DELETE) takes it. The decision
-- becomes its error kind, which the pump acts on at its next look at the
-- head (apply it as it is, or record it DEAD), and is kept with who and
-- when in HOLD_DECISION, HOLD_DECIDED_BY and HOLD_DECIDED_AT.
-- binds: :message_id number(19), :decision varchar2  RELEASED or REJECTED,
--        :decided_by varchar2  who, :now timestamp (UTC),
--        :held varchar2  status held (HELD), :waiting varchar2  error kind
--        waiting (MASS_DELETE)
-- returns: nothing (1 row updated, or 0 when the message waits for no decision)
-- locks: the PROC_STATE row
UPDATE PROC_STATE
SET ERROR_KIND = :decision,
    HOLD_DECISION = :decision,
    HOLD_DECIDED_BY = :decided_by,
    HOLD_DECIDED_AT = :now,
    UPDATED_AT = :now
WHERE MESSAGE_ID = :message_id
  AND STATUS = :held
  AND ERROR_KIND = :waiting
