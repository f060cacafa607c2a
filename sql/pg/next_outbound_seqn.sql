-- name: next_outbound_seqn
-- The next value of the outbound SEQN counter; META/SEQN is it modulo
-- 1,000,000, zero-padded (request::Seqn).
-- binds: $1 text  'outbound_seqn_seq'
-- returns: next_value
-- locks: none (a sequence; a rolled-back transaction leaves a gap)
SELECT nextval($1::regclass) AS next_value
