-- name: next_outbound_seqn
-- The next value of the outbound SEQN counter; META/SEQN is it modulo
-- 1,000,000, zero-padded (request::Seqn).
-- binds: none
-- returns: next_value
-- locks: none (a sequence, NOCACHE ORDER; a rolled-back transaction leaves a gap)
SELECT OUTBOUND_SEQN_SEQ.NEXTVAL AS NEXT_VALUE FROM DUAL
