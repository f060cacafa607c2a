-- Oracle 11g mirror of migrations_pg/2026-12-02-000016_outbox_key_slots/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V016__outbox_key_slots.sql`),
-- as the schema owner, after V015.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The dispatcher deletes and updates outbox rows in SERIALIZABLE transactions while the pump
-- inserts new ones; rising EVENT_IDs put every insert in the right-hand leaf blocks of the
-- primary-key indexes, the same blocks the dispatcher's deletes touch. V004 gave the tables and
-- their pending indexes INITRANS 8, but the keys kept the default 2, and ROWDEPENDENCIES covers
-- table rows, not index blocks: a transaction that finds no free slot in an index block under
-- SERIALIZABLE fails with ORA-08177. Each key's index is rebuilt with INITRANS 8, in place: the
-- key is never dropped, the statement is atomic, and running it again changes nothing, so a
-- resumed `flightstate migrate` simply runs it again. REBUILD (not ONLINE, which needs Enterprise
-- Edition) locks the table against DML while it runs; the outbox holds only unsent and recently
-- sent rows, so that is short, but run it outside the busiest hour.
ALTER INDEX KAFKA_SCHD_PK REBUILD INITRANS 8;
ALTER INDEX KAFKA_MSG_PK REBUILD INITRANS 8;

-- Oracle now stores the state document as PostgreSQL does (docs/oracle.md): V009's comment said
-- it stays NULL on Oracle.
COMMENT ON COLUMN FLIGHT_SCHD.STATE_DOCUMENT IS 'The flight''s whole state as the JSON the state topic carries (docs/kafka.md), at STATE_VERSION, as the pipeline last wrote it; NULL when not stored';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 16 AS VERSION, 'outbox_key_slots' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
