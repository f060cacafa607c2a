-- name: insert_delays
-- Inserts the DELY rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_delays for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :ordinal number(10)
--   :source_seq number(10)
--   :dely_code varchar2
--   :dely_strt date
--   :dely_dura number(10)
--   :dely varchar2
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_DELAY (
    FLID,
    ORDINAL,
    SOURCE_SEQ,
    DELY_CODE,
    DELY_STRT,
    DELY_DURA,
    DELY
)
VALUES (
    :flid,
    :ordinal,
    :source_seq,
    :dely_code,
    :dely_strt,
    :dely_dura,
    :dely
)
