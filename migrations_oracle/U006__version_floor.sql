-- Undoes V006__version_floor.sql (Oracle 11g mirror of migrations_pg/2026-11-29-000006_version_floor/down.sql).
-- Run by a DBA in SQL*Plus as the schema owner; `flightstate migrate` never undoes.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

DROP INDEX KAFKA_MSG_FLID_PENDING_IX;
DROP TABLE FLIGHT_VERSION_FLOOR;

DELETE FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 6;
COMMIT;
