-- name: insert_chocks
-- Inserts the CHOT rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_chocks for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :ordinal number(10)
--   :source_seq number(10)
--   :chtm date
--   :chid varchar2
--   :chst varchar2
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_CHOCK (
    FLID,
    ORDINAL,
    SOURCE_SEQ,
    CHTM,
    CHID,
    CHST
)
VALUES (
    :flid,
    :ordinal,
    :source_seq,
    :chtm,
    :chid,
    :chst
)
