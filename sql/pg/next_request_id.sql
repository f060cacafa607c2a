-- name: next_request_id
-- Takes the id of a new request before its row is written: the same
-- transaction names the request's journaled call after it and expires the
-- older request with it (docs/requests.md). The sequence is REQ_ID's
-- identity sequence, found by table and column.
-- binds: $1 text  'req_track', $2 text  'req_id'
-- returns: next_value
-- locks: none (a sequence; a rolled-back transaction leaves a gap)
SELECT nextval(pg_get_serial_sequence($1, $2)) AS next_value
