-- Nothing to undo (up.sql changes nothing on PostgreSQL).
SELECT 1;
