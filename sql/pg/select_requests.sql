-- name: select_requests
-- The live requests and the most recent others, newest first, each with its
-- journaled call (status, COUTMSGS id, attempts): `flightstate requests`.
-- binds: $1 varchar  PENDING, $2 bigint  limit
-- returns: req_id, req_kind, operation_day, sender, status, created_at,
--          answer_due_at, completed_at, completed_by_message_id,
--          expired_by_req_id, seqn, call_id, call_status, remote_ref, attempt
-- locks: none
SELECT r.req_id, r.req_kind, r.operation_day, r.sender, r.status, r.created_at,
       r.answer_due_at, r.completed_at, r.completed_by_message_id,
       r.expired_by_req_id, r.seqn, r.call_id,
       c.status AS call_status, c.remote_ref, c.attempt
FROM req_track r
LEFT JOIN effect_call c ON c.call_id = r.call_id
ORDER BY CASE WHEN r.status = $1 THEN 0 ELSE 1 END, r.req_id DESC
LIMIT $2
