-- The state document of each flight: its whole state as the JSON the state topic carries
-- (docs/kafka.md), so that the dispatcher publishes a flight by reading this one column instead
-- of the main row and nine detail tables.
--
-- It is bookkeeping, like STATE_DIGEST: written with every state the pipeline writes, from that
-- state, in the same statement as the main row, so it is always the document of the row's
-- STATE_VERSION. NULL (rows written before this migration) means "not stored": the dispatcher
-- then builds the document from the tables. A DBA's hand edit of the tables is published only
-- once the pipeline writes the flight again, as it would be without this column.

ALTER TABLE FLIGHT_SCHD ADD COLUMN STATE_DOCUMENT TEXT;

COMMENT ON COLUMN FLIGHT_SCHD.STATE_DOCUMENT IS 'The flight''s whole state as the JSON the state topic carries (docs/kafka.md), at STATE_VERSION, as the pipeline last wrote it; NULL when not stored';

-- lz4 rather than the default pglz for this column: a document (~2 KB) makes its row pass the
-- TOAST threshold, so it is compressed on every write and decompressed on every dispatch, and
-- lz4 does both several times faster (the dispatcher bench: ~0.2 s of PostgreSQL CPU per
-- 100,000 flights). A server built without lz4 (feature_not_supported) or older than
-- PostgreSQL 14 (no SET COMPRESSION: syntax_error) keeps pglz; EXECUTE so that the older
-- parser meets the clause only when the block runs, where the handler catches it.
DO $$
BEGIN
    EXECUTE 'ALTER TABLE FLIGHT_SCHD ALTER COLUMN STATE_DOCUMENT SET COMPRESSION lz4';
EXCEPTION
    WHEN feature_not_supported OR syntax_error THEN
        RAISE NOTICE 'STATE_DOCUMENT keeps pglz: %', SQLERRM;
END
$$;
