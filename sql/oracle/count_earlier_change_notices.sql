-- name: count_earlier_change_notices
-- Oracle only: for each claimed change notice of a flight, how many pending
-- notices of the same flight come before it, right after
-- claim_change_notices and in its transaction (under SERIALIZABLE, the
-- claim's snapshot). The repository keeps a flight's notices only from the
-- first on whose earlier ones are all in the claim. Its own statement rather
-- than a scalar subquery beside the claim's FOR UPDATE SKIP LOCKED (11g
-- refuses aggregates beside FOR UPDATE); here, in a plain query, the scalar
-- subquery is ordinary 11g SQL. The CASE expressions are those of
-- KAFKA_MSG_FLID_PENDING_IX and KAFKA_MSG_PENDING_IX: only pending rows are
-- read.
-- binds: :event_ids FLIGHTSTATE_ID_LIST  the claimed notices that have a FLID
-- returns: event_id, earlier_pending of each notice among :event_ids
-- hint: CARDINALITY(ids 100), a claim's notices as the optimiser is to
--       guess them (docs/oracle.md, "Id lists"); unhinted, 8,168 rows
-- locks: none
SELECT m.EVENT_ID,
       (SELECT COUNT(*)
        FROM KAFKA_MSG e
        WHERE (CASE WHEN e.SENT_AT IS NULL THEN e.FLID END) = m.FLID
          AND (CASE WHEN e.SENT_AT IS NULL THEN e.EVENT_ID END) < m.EVENT_ID) AS EARLIER_PENDING
FROM KAFKA_MSG m
WHERE m.EVENT_ID IN (SELECT /*+ CARDINALITY(ids 100) */ ids.COLUMN_VALUE FROM TABLE(CAST(:event_ids AS FLIGHTSTATE_ID_LIST)) ids)
