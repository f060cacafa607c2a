-- name: next_request_id
-- Takes the id of a new request before its row is written: the same
-- transaction names the request's journaled call after it and expires the
-- older request with it (docs/requests.md). 11g has no identity columns:
-- REQ_TRACK_SEQ (V003).
-- binds: none
-- returns: next_value
-- locks: none (a sequence; a rolled-back transaction leaves a gap)
SELECT REQ_TRACK_SEQ.NEXTVAL AS NEXT_VALUE FROM DUAL
