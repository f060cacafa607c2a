-- name: record_migration_step
-- Oracle only: records that the script's statements up to :steps_done ran
-- (DDL commits by itself; the caller commits this row right after).
-- binds: :version number(5), :steps_done number(5)
-- returns: nothing
-- locks: the FLIGHTSTATE_MIGRATION row
UPDATE FLIGHTSTATE_MIGRATION
SET STEPS_DONE = :steps_done,
    LAST_ERROR = NULL
WHERE VERSION = :version
