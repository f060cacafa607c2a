-- The outbox rows waiting for their retry time, indexed apart: every claim lists the flights
-- in back-off (their newer rows must not overtake them), and without this index that list
-- was a scan of the whole table on every claim (~18 ms per claim at 100,000 rows, growing
-- with the table). Only rows that failed and are not sent yet carry NEXT_ATTEMPT_AT (a
-- confirmed delivery clears it), so the indexes stay as small as the rows in back-off.

CREATE INDEX KAFKA_SCHD_BACKOFF_IX ON KAFKA_SCHD (NEXT_ATTEMPT_AT, FLID)
    WHERE SENT_AT IS NULL AND NEXT_ATTEMPT_AT IS NOT NULL;
CREATE INDEX KAFKA_MSG_BACKOFF_IX ON KAFKA_MSG (NEXT_ATTEMPT_AT, FLID)
    WHERE SENT_AT IS NULL AND NEXT_ATTEMPT_AT IS NOT NULL;

COMMENT ON INDEX KAFKA_SCHD_BACKOFF_IX IS 'Pending state events waiting for their retry time: the flights a claim skips';
COMMENT ON INDEX KAFKA_MSG_BACKOFF_IX IS 'Pending change notices waiting for their retry time: the flights a claim skips';
