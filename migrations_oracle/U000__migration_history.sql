-- Undoes V000__migration_history.sql: run last, after every other U script.
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP TABLE FLIGHTSTATE_MIGRATION;
