-- name: select_open_cursors
-- Oracle only: the instance's OPEN_CURSORS, read when a session opens so that
-- its statement cache (every cached statement keeps a cursor open) fits under
-- it, and by `flightstate doctor`. V$PARAMETER needs SELECT on
-- SYS.V_$PARAMETER (SELECT_CATALOG_ROLE): a user without it gets ORA-00942,
-- and the session keeps a cache that fits the 11.2 default of 50
-- (docs/oracle.md, "Statement cache").
-- binds: :parameter_name varchar2  the parameter (open_cursors)
-- returns: open_cursors
-- locks: none
SELECT TO_NUMBER(p.VALUE) AS OPEN_CURSORS
FROM V$PARAMETER p
WHERE p.NAME = :parameter_name
