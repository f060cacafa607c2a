-- name: expire_requests
-- One live request per kind (DESIGN §4 "Requests"): registering a new
-- request expires the live one of its kind, naming the new one.
-- binds: $1 varchar  req_kind, $2 bigint  the new request's REQ_ID,
--        $3 timestamp  now (UTC), $4 varchar  EXPIRED, $5 varchar  PENDING
-- returns: req_id, call_id of each request expired
-- locks: the expired REQ_TRACK rows
UPDATE req_track
SET status = $4,
    completed_at = $3,
    expired_by_req_id = $2
WHERE req_kind = $1
  AND status = $5
RETURNING req_id, call_id
