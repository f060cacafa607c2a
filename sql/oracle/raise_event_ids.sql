-- name: raise_event_ids
-- `flightstate resync`: numbers the outbox rows registered from now on above
-- the highest event id each topic holds. A restore sets the outboxes'
-- sequences back to the backup: without this, new rows would reuse event
-- ids consumers have already seen, and a consumer deduping change notices on
-- the `event-id` header would drop new notices as repeats. 11g has no ALTER
-- SEQUENCE … RESTART, and DDL would commit the caller's transaction: the
-- block draws from each sequence until it reaches the topic's highest id
-- (the ids used since the backup; CACHE 100 makes a draw cheap). A sequence
-- already above draws one value, a gap like any rollback's. A PL/SQL block,
-- so it ends with `;`.
-- binds: :state_events_above number  the state topic's highest event id (0: none),
--        :change_notices_above number  the change topic's highest event id (0: none)
-- returns: nothing
-- locks: none (a sequence is not transactional: what is drawn stays drawn)
DECLARE
    drawn NUMBER;
BEGIN
    LOOP
        SELECT KAFKA_SCHD_SEQ.NEXTVAL INTO drawn FROM DUAL;
        EXIT WHEN drawn >= :state_events_above;
    END LOOP;
    LOOP
        SELECT KAFKA_MSG_SEQ.NEXTVAL INTO drawn FROM DUAL;
        EXIT WHEN drawn >= :change_notices_above;
    END LOOP;
END;
