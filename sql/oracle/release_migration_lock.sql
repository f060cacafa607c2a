-- name: release_migration_lock
-- Releases the user lock taken by take_migration_lock. ALLOCATE_UNIQUE
-- returns the same handle for the same name (and commits: the migration's
-- work is committed by then). A PL/SQL block, so it ends with `;`.
-- binds: :lock_name varchar2  FLIGHTSTATE_MIGRATE.<schema>;
--        out :status number  DBMS_LOCK.RELEASE's result (0 = released, 4 = not held)
-- returns: :status
-- locks: releases the user lock named :lock_name
DECLARE
    handle VARCHAR2(128);
BEGIN
    DBMS_LOCK.ALLOCATE_UNIQUE(lockname => :lock_name, lockhandle => handle);
    :status := DBMS_LOCK.RELEASE(lockhandle => handle);
END;
