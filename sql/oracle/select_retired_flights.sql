-- name: select_retired_flights
-- The history clean-up's flights (`cleanup.history_days`): flights of an
-- operation day before the first day kept. A flight belongs to one day, and
-- a later snapshot of another day deletes only flights of its own day, so
-- removing them never changes what a snapshot of a kept day deletes
-- (docs/open-questions.md, "Past operation days"). FLIDs above a cursor,
-- ascending, at most a batch; ROWNUM limits the ordered view.
-- binds: :first_kept date  first operation day kept (days before it),
--        :after_flid number  FLID cursor (only FLIDs above it),
--        :max_rows number  how many
-- returns: flid, operation_day, last_message_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT flid, operation_day, last_message_id
FROM (
    SELECT f.FLID AS flid, f.OPERATION_DAY AS operation_day,
           f.LAST_MESSAGE_ID AS last_message_id
    FROM FLIGHT_SCHD f
    WHERE f.OPERATION_DAY < :first_kept
      AND f.FLID > :after_flid
    ORDER BY f.FLID
)
WHERE ROWNUM <= :max_rows
