-- name: insert_request
-- Registers a request as PENDING, with the id next_request_id gave and the
-- journaled call that writes its message into COUTMSGS.
-- binds: $1 bigint  req_id, $2 varchar  req_kind, $3 date  operation_day,
--        $4 varchar  sender expected in the answer, $5 varchar  PENDING,
--        $6 timestamp  now (UTC), $7 timestamp  answer_due_at (UTC),
--        $8 varchar  seqn, $9 bigint  call_id
-- returns: nothing
-- locks: the new REQ_TRACK row (REQ_TRACK_ONE_PENDING_UX: a second live
--        request of the kind fails as a duplicate)
INSERT INTO req_track (
    req_id, req_kind, operation_day, sender, status, created_at,
    answer_due_at, seqn, call_id
)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
