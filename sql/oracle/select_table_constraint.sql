-- name: select_table_constraint
-- Oracle only: whether a table has a named constraint, so that a resumed
-- migration can tell whether an ALTER TABLE … ADD CONSTRAINT (or DROP
-- CONSTRAINT) already ran, for the same reason as select_schema_object.
-- binds: :table_name varchar2, :constraint_name varchar2
-- returns: n (0 or 1)
-- locks: none
SELECT COUNT(*) AS N
FROM USER_CONSTRAINTS
WHERE TABLE_NAME = :table_name
  AND CONSTRAINT_NAME = :constraint_name
