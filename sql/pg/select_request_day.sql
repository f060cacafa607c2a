-- name: select_request_day
-- The operation day of the newest PENDING request of a kind whose answer is
-- expected from a sender: the day of a RESP that names none (DESIGN §4).
-- binds: $1 varchar  sender, $2 varchar  req_kind, $3 varchar  PENDING
-- returns: operation_day; no row when no such request is live
-- locks: none
SELECT operation_day
FROM req_track
WHERE sender = $1
  AND req_kind = $2
  AND status = $3
  AND operation_day IS NOT NULL
ORDER BY created_at DESC, req_id DESC
LIMIT 1
