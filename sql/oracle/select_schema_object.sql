-- name: select_schema_object
-- Oracle only: whether the schema already holds an object a migration
-- statement creates. DDL commits by itself, so a run stopped between a
-- CREATE and the record of its step leaves the object without the step; the
-- resumed run asks the dictionary before it creates the object again.
-- Migrations run as the schema owner, so USER_OBJECTS is the schema's.
-- binds: :object_name varchar2, :object_type varchar2  TABLE, INDEX, SEQUENCE, TYPE, …
-- returns: n (0 or 1)
-- locks: none
SELECT COUNT(*) AS N
FROM USER_OBJECTS
WHERE OBJECT_NAME = :object_name
  AND OBJECT_TYPE = :object_type
