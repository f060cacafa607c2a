-- name: finish_migration
-- Oracle only: marks a script applied once its every statement ran (its own
-- last statement has usually done so already; this adds the step count).
-- binds: :version number(5), :applied varchar2  APPLIED, :steps_done number(5),
--        :now timestamp (UTC)
-- nonempty: :applied  the constant APPLIED
-- returns: nothing
-- locks: the FLIGHTSTATE_MIGRATION row
UPDATE FLIGHTSTATE_MIGRATION
SET STATUS = :applied,
    STEPS_DONE = :steps_done,
    LAST_ERROR = NULL,
    FINISHED_AT = COALESCE(FINISHED_AT, :now)
WHERE VERSION = :version
