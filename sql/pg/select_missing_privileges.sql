-- name: select_missing_privileges
-- The tables of the given list that the connected user cannot read and
-- write as the pipeline does (or that do not exist), for `flightstate doctor`.
-- binds: $1 text[]  the tables' names
--        $2 text    the privileges, SELECT, INSERT, UPDATE, DELETE
-- returns: table_name (text), ascending
-- locks: none
SELECT t.name AS table_name
FROM unnest($1::text[]) AS t(name)
WHERE to_regclass(t.name) IS NULL
   OR NOT has_table_privilege(t.name, $2)
ORDER BY t.name
