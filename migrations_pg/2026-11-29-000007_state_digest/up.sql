-- The digest of each flight's stored state, so that a snapshot can tell which of its
-- flights are unchanged from one narrow read instead of reading every detail table back.
--
-- It is bookkeeping: written with every state the pipeline writes, from that state; a row
-- written by anything else (a DBA's hand edit) carries a digest that no longer matches its
-- content, and the next snapshot that carries the flight then rewrites it in full (NULL, or
-- any mismatch, means "not known to be unchanged").

ALTER TABLE FLIGHT_SCHD ADD COLUMN STATE_DIGEST CHAR(64);

COMMENT ON COLUMN FLIGHT_SCHD.STATE_DIGEST IS 'Lower-case hex SHA-256 of the flight''s full state (main row and every collection) as the pipeline last wrote it; NULL when unknown';
