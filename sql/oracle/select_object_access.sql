-- name: select_object_access
-- Oracle only: whether the connected user may use an object of another
-- schema, for `flightstate doctor` (SYS.DBMS_LOCK, which `flightstate
-- migrate` calls to serialise its runs and which 11.2 does not grant to
-- PUBLIC). ALL_OBJECTS lists another schema's package only to a user who
-- may execute it: granted directly, through an enabled role or PUBLIC, or by
-- EXECUTE ANY PROCEDURE.
-- binds: :owner varchar2  the object's schema (SYS), :object_name varchar2
--        (DBMS_LOCK), :object_type varchar2  (PACKAGE)
-- returns: n, 1 when the user may use it, else 0
-- locks: none
SELECT COUNT(*) AS N
FROM ALL_OBJECTS o
WHERE o.OWNER = :owner
  AND o.OBJECT_NAME = :object_name
  AND o.OBJECT_TYPE = :object_type
