-- name: select_table_column
-- Oracle only: whether a table already has a column a migration statement
-- adds (ALTER TABLE … ADD), for the same reason as select_schema_object.
-- binds: :table_name varchar2, :column_name varchar2
-- returns: n (0 or 1)
-- locks: none
SELECT COUNT(*) AS N
FROM USER_TAB_COLUMNS
WHERE TABLE_NAME = :table_name
  AND COLUMN_NAME = :column_name
