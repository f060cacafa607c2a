-- name: select_chutes
-- Reads the CHDT rows of many flights at once, in input order. The FLIDs
-- come as one collection bind (no IN list, so no 1000-item limit), driving a
-- nested loop over the primary key: one index probe per flight, whether the
-- list holds one FLID or a whole day.
-- binds: :flids FLIGHTSTATE_ID_LIST  flids (distinct)
-- returns: flid, ordinal, source_seq, chut, ccls, pcbt, pcet, cbtm, cetm, ctyp
-- hint: CARDINALITY(ids 100), the list's size as the optimiser is to
--       guess it (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none
SELECT /*+ LEADING(ids) USE_NL(d) CARDINALITY(ids 100) */
    d.FLID,
    d.ORDINAL,
    d.SOURCE_SEQ,
    d.CHUT,
    d.CCLS,
    d.PCBT,
    d.PCET,
    d.CBTM,
    d.CETM,
    d.CTYP
FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids,
    FLIGHT_CHUTE d
WHERE d.FLID = ids.COLUMN_VALUE
ORDER BY d.FLID, d.ORDINAL
