-- name: select_character_set
-- Oracle only: the database character set, for `flightstate doctor`: the
-- dialect's VARCHAR2(n CHAR) columns and CLOB documents need AL32UTF8.
-- binds: :parameter varchar2  NLS_CHARACTERSET
-- returns: value (the character set's name)
-- locks: none
SELECT VALUE
FROM NLS_DATABASE_PARAMETERS
WHERE PARAMETER = :parameter
