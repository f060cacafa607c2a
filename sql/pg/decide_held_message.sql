-- name: decide_held_message
-- An operator's decision on a snapshot the mass-delete guard holds
-- (`flightstate release` / `flightstate reject`): only a HELD message still
-- waiting for a decision (error kind MASS_DELETE) takes it. The decision
-- becomes its error kind, which the pump acts on at its next look at the
-- head (apply it as it is, or record it DEAD), and is kept with who and
-- when in HOLD_DECISION, HOLD_DECIDED_BY and HOLD_DECIDED_AT.
-- binds: $1 bigint  message_id, $2 varchar  decision (RELEASED or REJECTED),
--        $3 varchar  decided by, $4 timestamp  now (UTC),
--        $5 varchar  status held (HELD), $6 varchar  error kind waiting (MASS_DELETE)
-- returns: nothing (1 row updated, or 0 when the message waits for no decision)
-- locks: the PROC_STATE row
UPDATE proc_state
SET error_kind = $2,
    hold_decision = $2,
    hold_decided_by = $3,
    hold_decided_at = $4,
    updated_at = $4
WHERE message_id = $1
  AND status = $5
  AND error_kind = $6
