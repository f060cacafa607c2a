-- name: select_migrations
-- Oracle only: the migration history, to decide what to skip, resume or run.
-- binds: none
-- returns: version, name, status, steps_done, checksum, last_error, by version
-- locks: none (the caller holds the migration lock)
SELECT VERSION, NAME, STATUS, STEPS_DONE, CHECKSUM, LAST_ERROR
FROM FLIGHTSTATE_MIGRATION
ORDER BY VERSION
