-- name: insert_counters
-- Inserts the CKDT rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_counters for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :ordinal number(10)
--   :source_seq number(10)
--   :chkc varchar2
--   :ccls varchar2
--   :pcot date
--   :pcct date
--   :cotm date
--   :cctm date
--   :ctyp varchar2
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_COUNTER (
    FLID,
    ORDINAL,
    SOURCE_SEQ,
    CHKC,
    CCLS,
    PCOT,
    PCCT,
    COTM,
    CCTM,
    CTYP
)
VALUES (
    :flid,
    :ordinal,
    :source_seq,
    :chkc,
    :ccls,
    :pcot,
    :pcct,
    :cotm,
    :cctm,
    :ctyp
)
