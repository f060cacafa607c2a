-- name: select_old_operator_actions
-- The operator actions the lifecycle clean-up may remove: taken before the
-- cutoff (cleanup.action_days). Action ids above a cursor, ascending, at
-- most a batch; ROWNUM limits the ordered view.
-- binds: :cutoff timestamp  cutoff (UTC; TAKEN_AT before it),
--        :after_id number  action id cursor, :max_rows number  how many
-- returns: action_id
-- locks: none (the caller holds PIPELINE_LOCK)
SELECT action_id
FROM (
    SELECT a.ACTION_ID AS action_id
    FROM OPERATOR_ACTION a
    WHERE a.TAKEN_AT < :cutoff
      AND a.ACTION_ID > :after_id
    ORDER BY a.ACTION_ID
)
WHERE ROWNUM <= :max_rows
