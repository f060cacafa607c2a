-- name: time_out_requests
-- Marks TIMED_OUT every PENDING request whose answer was due by now, so that
-- a request without an answer is visible, never silently dropped. REQ_TRACK
-- holds a few rows a day: no index is needed for it.
-- binds: :now timestamp (UTC), :timed_out varchar2  TIMED_OUT,
--        :pending varchar2  PENDING; out :req_id number(19)
-- nonempty: :timed_out  a RequestStatus code (TIMED_OUT)
-- returns: :req_id of each request timed out (RETURNING INTO)
-- locks: the timed-out REQ_TRACK rows
UPDATE REQ_TRACK
SET STATUS = :timed_out,
    COMPLETED_AT = :now
WHERE STATUS = :pending
  AND ANSWER_DUE_AT <= :now
RETURNING REQ_ID INTO :req_id
