-- name: raise_event_ids
-- `flightstate resync`: numbers the outbox rows registered from now on above
-- the highest event id each topic holds. A restore sets the outboxes'
-- identity sequences back to the backup: without this, new rows would reuse
-- event ids consumers have already seen, and a consumer deduping change
-- notices on the `event-id` header would drop new notices as repeats. A
-- sequence only ever moves up here; one already above is left alone. The
-- table and column names are binds, constants of the caller, by which
-- pg_get_serial_sequence finds each column's identity sequence. Needs
-- UPDATE on the two sequences (their owner has it).
-- binds: $1 varchar  the state outbox (kafka_schd), $2 varchar  the change
--        outbox (kafka_msg), $3 varchar  their id column (event_id),
--        $4 bigint  the state topic's highest event id (0: none),
--        $5 bigint  the change topic's highest event id (0: none)
-- returns: setval, one row per sequence raised
-- locks: none (a sequence is not transactional: once raised it stays, even
--        if the transaction rolls back)
SELECT setval(s.seq, s.above)
FROM (VALUES (pg_get_serial_sequence($1, $3)::regclass, $4::bigint),
             (pg_get_serial_sequence($2, $3)::regclass, $5::bigint)) AS s (seq, above)
WHERE s.above > coalesce(pg_sequence_last_value(s.seq), 0)
