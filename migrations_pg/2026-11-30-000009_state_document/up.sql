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
