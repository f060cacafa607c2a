-- name: insert_migration
-- Oracle only: records that `flightstate migrate` starts a script, before its
-- first statement, so that a run stopped half-way leaves an APPLYING row.
-- binds: :version number(5), :name varchar2, :applying varchar2  APPLYING,
--        :steps_total number(5), :checksum varchar2(64), :now timestamp (UTC)
-- nonempty: :name  a script name of migrations_oracle/
-- nonempty: :applying  the constant APPLYING
-- returns: nothing
-- locks: the new FLIGHTSTATE_MIGRATION row
INSERT INTO FLIGHTSTATE_MIGRATION (
    VERSION, NAME, STATUS, STEPS_DONE, STEPS_TOTAL, CHECKSUM, STARTED_AT
)
VALUES (:version, :name, :applying, 0, :steps_total, :checksum, :now)
