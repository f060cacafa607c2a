-- name: expire_requests
-- One live request per kind (DESIGN §4 "Requests"): registering a new
-- request expires the live one of its kind, naming the new one.
-- binds: :req_kind varchar2, :new_req_id number(19), :now timestamp (UTC),
--        :expired varchar2  EXPIRED, :pending varchar2  PENDING;
--        out :req_id number(19), out :call_id number(19)
-- nonempty: :expired  a RequestStatus code (EXPIRED)
-- returns: :req_id, :call_id of each request expired (RETURNING INTO)
-- locks: the expired REQ_TRACK rows
UPDATE REQ_TRACK
SET STATUS = :expired,
    COMPLETED_AT = :now,
    EXPIRED_BY_REQ_ID = :new_req_id
WHERE REQ_KIND = :req_kind
  AND STATUS = :pending
RETURNING REQ_ID, CALL_ID INTO :req_id, :call_id
