-- name: select_request_day
-- The operation day of the newest PENDING request of a kind whose answer is
-- expected from a sender: the day of a RESP that names none (DESIGN §4).
-- 11g has no FETCH FIRST: the newest is cut by ROWNUM outside the ORDER BY.
-- binds: :sender varchar2, :req_kind varchar2, :pending varchar2  PENDING
-- returns: operation_day; no row when no such request is live
-- locks: none
SELECT OPERATION_DAY
FROM (
    SELECT OPERATION_DAY
    FROM REQ_TRACK
    WHERE SENDER = :sender
      AND REQ_KIND = :req_kind
      AND STATUS = :pending
      AND OPERATION_DAY IS NOT NULL
    ORDER BY CREATED_AT DESC, REQ_ID DESC
)
WHERE ROWNUM = 1
