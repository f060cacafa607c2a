-- name: insert_carousels
-- Inserts the CLDT rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_carousels for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :ordinal number(10)
--   :source_seq number(10)
--   :belt varchar2
--   :bcls varchar2
--   :pcot date
--   :pcct date
--   :fbag date
--   :lbag date
--   :btyp varchar2
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_CAROUSEL (
    FLID,
    ORDINAL,
    SOURCE_SEQ,
    BELT,
    BCLS,
    PCOT,
    PCCT,
    FBAG,
    LBAG,
    BTYP
)
VALUES (
    :flid,
    :ordinal,
    :source_seq,
    :belt,
    :bcls,
    :pcot,
    :pcct,
    :fbag,
    :lbag,
    :btyp
)
