-- name: insert_stands
-- Inserts the PSDT, PSHT, TIPT rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_stands for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :ordinal number(10)
--   :source_seq number(10)
--   :psst varchar2
--   :stst date
--   :stet date
--   :pshn number(10)
--   :pstm date
--   :psid varchar2
--   :trtm date
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_STAND (
    FLID,
    ORDINAL,
    SOURCE_SEQ,
    PSST,
    STST,
    STET,
    PSHN,
    PSTM,
    PSID,
    TRTM
)
VALUES (
    :flid,
    :ordinal,
    :source_seq,
    :psst,
    :stst,
    :stet,
    :pshn,
    :pstm,
    :psid,
    :trtm
)
