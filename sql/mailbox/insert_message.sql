-- name: insert_message
-- Puts one message into the inbound mailbox as AODB would: pending status,
-- received now (the mailbox server's clock). Used by `flightstate enqueue`
-- for demos, tests and manual re-injection; flightstate never writes
-- CMINMSGS otherwise.
-- binds: ? mediumtext  the message XML, ? varchar  pending status,
--        ? varchar  META TYPE (or NULL), ? varchar  META STYP (or NULL)
-- returns: affected rows (1); the new CMINMSGS_ID is the insert id
-- locks: the new row
INSERT INTO cminmsgs (
    CMINMSGS_CLOB_MSG,
    CMINMSGS_DATE_RECEIVED,
    CMINMSGS_STATUS,
    CMINMSGS_SUBSYSTEM_TYPE,
    CMINMSGS_SUBSYSTEM_SUBTYPE
)
VALUES (?, NOW(), ?, ?, ?)
