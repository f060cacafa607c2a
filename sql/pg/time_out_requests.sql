-- name: time_out_requests
-- Marks TIMED_OUT every PENDING request whose answer was due by now, so that
-- a request without an answer is visible, never silently dropped. REQ_TRACK
-- holds a few rows a day: no index is needed for it.
-- binds: $1 timestamp  now (UTC), $2 varchar  TIMED_OUT, $3 varchar  PENDING
-- returns: req_id of each request timed out
-- locks: the timed-out REQ_TRACK rows
UPDATE req_track
SET status = $2,
    completed_at = $1
WHERE status = $3
  AND answer_due_at <= $1
RETURNING req_id
