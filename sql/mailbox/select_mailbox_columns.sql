-- name: select_mailbox_columns
-- The columns of the two mailbox tables as the server declares them, for
-- `flightstate doctor` to compare with those flightstate reads and writes.
-- binds: ? varchar  cminmsgs
--        ? varchar  coutmsgs
-- returns: table_name (lower case), column_name (upper case), data_type
-- locks: none (the data dictionary)
SELECT LOWER(TABLE_NAME) AS table_name,
       UPPER(COLUMN_NAME) AS column_name,
       LOWER(DATA_TYPE) AS data_type
FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = DATABASE()
  AND LOWER(TABLE_NAME) IN (?, ?)
ORDER BY table_name, ORDINAL_POSITION
