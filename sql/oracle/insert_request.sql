-- name: insert_request
-- Registers a request as PENDING, with the id next_request_id gave and the
-- journaled call that writes its message into COUTMSGS.
-- binds: :req_id number(19), :req_kind varchar2, :operation_day date,
--        :sender varchar2  sender expected in the answer, :pending varchar2  PENDING,
--        :now timestamp (UTC), :answer_due_at timestamp (UTC),
--        :seqn varchar2(6), :call_id number(19)
-- nonempty: :req_kind  a RequestKind code (RQFD)
-- nonempty: :pending  a RequestStatus code (PENDING)
-- returns: nothing
-- locks: the new REQ_TRACK row (REQ_TRACK_ONE_PENDING_UX: a second live
--        request of the kind fails as a duplicate)
INSERT INTO REQ_TRACK (
    REQ_ID, REQ_KIND, OPERATION_DAY, SENDER, STATUS, CREATED_AT,
    ANSWER_DUE_AT, SEQN, CALL_ID
)
VALUES (
    :req_id, :req_kind, :operation_day, :sender, :pending, :now,
    :answer_due_at, :seqn, :call_id
)
