-- name: insert_route_points
-- Inserts the ROUT, ERUT rows of many flights: one batch entry per row, sent by the
-- oracle crate's batch API (array DML, one round trip per batch; 11g has no
-- UNNEST). Always follows delete_route_points for the same FLIDs (group
-- delete-insert: a collection is replaced as a whole).
-- binds (per batch entry):
--   :flid number(19)
--   :route_kind varchar2
--   :ordinal number(10)
--   :source_seq number(10)
--   :apcd varchar2
--   :scat date
--   :scdt date
-- nonempty: :route_kind  the constant ROUT or ERUT
-- returns: nothing
-- locks: none beyond the inserted rows
INSERT INTO FLIGHT_ROUTE_POINT (
    FLID,
    ROUTE_KIND,
    ORDINAL,
    SOURCE_SEQ,
    APCD,
    SCAT,
    SCDT
)
VALUES (
    :flid,
    :route_kind,
    :ordinal,
    :source_seq,
    :apcd,
    :scat,
    :scdt
)
