-- Nothing to change on PostgreSQL. The Oracle twin (migrations_oracle/V016__outbox_key_slots.sql)
-- gives the outbox's primary-key indexes the interested-transaction slots that Oracle's
-- SERIALIZABLE dispatcher needs beside the pump's inserts; a PostgreSQL index page has no such
-- fixed list of slots. The migration exists so that both histories count the same versions.
SELECT 1;
