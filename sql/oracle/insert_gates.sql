-- name: insert_gates
-- Inserts the GTDT rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_gates for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :ordinal number(10)
--   :source_seq number(10)
--   :gate varchar2
--   :pgot date
--   :pgct date
--   :gotm date
--   :gctm date
--   :gtyp varchar2
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_GATE (
    FLID,
    ORDINAL,
    SOURCE_SEQ,
    GATE,
    PGOT,
    PGCT,
    GOTM,
    GCTM,
    GTYP
)
VALUES (
    :flid,
    :ordinal,
    :source_seq,
    :gate,
    :pgot,
    :pgct,
    :gotm,
    :gctm,
    :gtyp
)
