-- name: insert_chutes
-- Inserts the CHDT rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_chutes for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :ordinal number(10)
--   :source_seq number(10)
--   :chut varchar2
--   :ccls varchar2
--   :pcbt date
--   :pcet date
--   :cbtm date
--   :cetm date
--   :ctyp varchar2
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_CHUTE (
    FLID,
    ORDINAL,
    SOURCE_SEQ,
    CHUT,
    CCLS,
    PCBT,
    PCET,
    CBTM,
    CETM,
    CTYP
)
VALUES (
    :flid,
    :ordinal,
    :source_seq,
    :chut,
    :ccls,
    :pcbt,
    :pcet,
    :cbtm,
    :cetm,
    :ctyp
)
