-- name: complete_request
-- An answer for operation day D from sender S completes the newest PENDING
-- request of (D, S, kind) (DESIGN §4 "Requests"). A late or repeated answer
-- finds no PENDING request and completes nothing.
-- binds: $1 date  operation_day, $2 varchar  sender, $3 varchar  req_kind,
--        $4 bigint  the answer's message id, $5 timestamp  now (UTC),
--        $6 varchar  COMPLETED, $7 varchar  PENDING
-- returns: req_id of the request completed; no row when none
-- locks: the completed REQ_TRACK row
UPDATE req_track
SET status = $6,
    completed_at = $5,
    completed_by_message_id = $4
WHERE req_id = (
    SELECT req_id
    FROM req_track
    WHERE operation_day = $1
      AND sender = $2
      AND req_kind = $3
      AND status = $7
    ORDER BY created_at DESC, req_id DESC
    LIMIT 1
)
  AND status = $7
RETURNING req_id
