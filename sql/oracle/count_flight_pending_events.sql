-- name: count_flight_pending_events
-- Oracle only: how many pending state events each claimed flight has, right
-- after claim_state_events and in its transaction (under SERIALIZABLE, the
-- claim's snapshot). A flight of which the claim locked fewer rows has rows
-- in another dispatcher's pass and is dropped from the claim. Its own
-- statement rather than a scalar subquery beside the claim's FOR UPDATE SKIP
-- LOCKED (11g refuses aggregates beside FOR UPDATE). The CASE expression is
-- KAFKA_SCHD_FLID_PENDING_IX's: only pending rows are read.
-- binds: :flids FLIGHTSTATE_ID_LIST  the claimed flights (distinct)
-- returns: flid, flight_pending of each flight among :flids with a pending row
-- hint: CARDINALITY(ids 100), a claim's flights as the optimiser is to
--       guess them (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none
SELECT p.FLID, COUNT(*) AS FLIGHT_PENDING
FROM KAFKA_SCHD p
WHERE (CASE WHEN p.SENT_AT IS NULL THEN p.FLID END) IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:flids AS FLIGHTSTATE_ID_LIST)) ids)
GROUP BY p.FLID
