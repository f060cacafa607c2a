-- name: insert_bridges
-- Inserts the ABTM rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_bridges for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :ordinal number(10)
--   :source_seq number(10)
--   :abdg varchar2
--   :abop varchar2
--   :aotm date
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_BRIDGE (
    FLID,
    ORDINAL,
    SOURCE_SEQ,
    ABDG,
    ABOP,
    AOTM
)
VALUES (
    :flid,
    :ordinal,
    :source_seq,
    :abdg,
    :abop,
    :aotm
)
