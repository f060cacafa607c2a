-- name: complete_request
-- An answer for operation day D from sender S completes the newest PENDING
-- request of (D, S, kind) (DESIGN §4 "Requests"). A late or repeated answer
-- finds no PENDING request and completes nothing. 11g has no FETCH FIRST:
-- the newest is cut by ROWNUM outside the ORDER BY.
-- binds: :operation_day date, :sender varchar2, :req_kind varchar2,
--        :message_id number(19)  the answer's message id, :now timestamp (UTC),
--        :completed varchar2  COMPLETED, :pending varchar2  PENDING;
--        out :req_id number(19)
-- nonempty: :completed  a RequestStatus code (COMPLETED)
-- returns: :req_id of the request completed (RETURNING INTO); row count 0 when none
-- locks: the completed REQ_TRACK row
UPDATE REQ_TRACK
SET STATUS = :completed,
    COMPLETED_AT = :now,
    COMPLETED_BY_MESSAGE_ID = :message_id
WHERE REQ_ID = (
    SELECT REQ_ID
    FROM (
        SELECT REQ_ID
        FROM REQ_TRACK
        WHERE OPERATION_DAY = :operation_day
          AND SENDER = :sender
          AND REQ_KIND = :req_kind
          AND STATUS = :pending
        ORDER BY CREATED_AT DESC, REQ_ID DESC
    )
    WHERE ROWNUM = 1
)
  AND STATUS = :pending
RETURNING REQ_ID INTO :req_id
