-- name: select_requests
-- The live requests and the most recent others, newest first, each with its
-- journaled call (status, COUTMSGS id, attempts): `flightstate requests`.
-- 11g has no FETCH FIRST: the ordered rows are cut by ROWNUM outside the
-- ORDER BY.
-- binds: :pending varchar2  PENDING, :row_limit number  the most rows
-- returns: req_id, req_kind, operation_day, sender, status, created_at,
--          answer_due_at, completed_at, completed_by_message_id,
--          expired_by_req_id, seqn, call_id, call_status, remote_ref, attempt
-- locks: none
SELECT REQ_ID, REQ_KIND, OPERATION_DAY, SENDER, STATUS, CREATED_AT,
       ANSWER_DUE_AT, COMPLETED_AT, COMPLETED_BY_MESSAGE_ID,
       EXPIRED_BY_REQ_ID, SEQN, CALL_ID, CALL_STATUS, REMOTE_REF, ATTEMPT
FROM (
    SELECT r.REQ_ID, r.REQ_KIND, r.OPERATION_DAY, r.SENDER, r.STATUS, r.CREATED_AT,
           r.ANSWER_DUE_AT, r.COMPLETED_AT, r.COMPLETED_BY_MESSAGE_ID,
           r.EXPIRED_BY_REQ_ID, r.SEQN, r.CALL_ID,
           c.STATUS AS CALL_STATUS, c.REMOTE_REF, c.ATTEMPT
    FROM REQ_TRACK r
    LEFT JOIN EFFECT_CALL c ON c.CALL_ID = r.CALL_ID
    ORDER BY CASE WHEN r.STATUS = :pending THEN 0 ELSE 1 END, r.REQ_ID DESC
)
WHERE ROWNUM <= :row_limit
