-- name: next_effect_call_id
-- Takes the id of a new journaled call before its row is written, as
-- next_request_id does for requests: insert_effect_intent then binds it and
-- needs no RETURNING, which would send its CLOB payload bind at execute time
-- with the out-bind. 11g has no identity columns: EFFECT_CALL_SEQ (V005).
-- binds: none
-- returns: next_value
-- locks: none (a sequence; a rolled-back transaction or a key already
--        journaled leaves a gap)
SELECT EFFECT_CALL_SEQ.NEXTVAL AS NEXT_VALUE FROM DUAL
