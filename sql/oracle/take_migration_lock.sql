-- name: take_migration_lock
-- Waits for and takes the exclusive user lock that serialises
-- `flightstate migrate` runs against one schema. DDL commits, so a table lock
-- would not last: DBMS_LOCK's lock is held by the session until released
-- (release_on_commit => FALSE). The lock is named, not numbered:
-- ALLOCATE_UNIQUE maps the name to a lock id of its own range
-- (1073741824-1999999999), so it cannot collide with another application's
-- numbered user locks (0-1073741823). ALLOCATE_UNIQUE commits: this runs
-- before any work of the session. Needs EXECUTE on SYS.DBMS_LOCK
-- (docs/oracle.md). A PL/SQL block, so it ends with `;`.
-- binds: :lock_name varchar2  FLIGHTSTATE_MIGRATE.<schema>, :wait_secs number  the longest wait;
--        out :status number  DBMS_LOCK.REQUEST's result (0 = taken, 1 = timeout,
--        2 = deadlock, 3 = parameter error, 4 = already held, 5 = illegal lock)
-- returns: :status
-- locks: the user lock named :lock_name, until release_migration_lock or disconnect
DECLARE
    handle VARCHAR2(128);
BEGIN
    DBMS_LOCK.ALLOCATE_UNIQUE(lockname => :lock_name, lockhandle => handle);
    :status := DBMS_LOCK.REQUEST(
        lockhandle => handle,
        lockmode => DBMS_LOCK.X_MODE,
        timeout => :wait_secs,
        release_on_commit => FALSE);
END;
