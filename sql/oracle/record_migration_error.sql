-- name: record_migration_error
-- Oracle only: keeps why a script stopped, for the operator and the next run
-- (which resumes at the failed statement).
-- binds: :version number(5), :error varchar2
-- returns: nothing
-- locks: the FLIGHTSTATE_MIGRATION row
UPDATE FLIGHTSTATE_MIGRATION
SET LAST_ERROR = SUBSTR(:error, 1, 2000)
WHERE VERSION = :version
