-- name: take_migration_lock
-- Waits for and takes the exclusive user lock that serialises
-- `flightstate migrate` runs against one schema. DDL commits, so a table lock
-- would not last: DBMS_LOCK's lock is held by the session until released
-- (release_on_commit => FALSE). Needs EXECUTE on SYS.DBMS_LOCK (docs/oracle.md).
-- A PL/SQL block, so it ends with `;`.
-- binds: :lock_id number  the migration lock id, :wait_secs number  the longest wait;
--        out :status number  DBMS_LOCK.REQUEST's result (0 = taken, 1 = timeout,
--        2 = deadlock, 3 = parameter error, 4 = already held, 5 = illegal lock)
-- returns: :status
-- locks: the user lock :lock_id, until release_migration_lock or disconnect
BEGIN
    :status := DBMS_LOCK.REQUEST(
        id => :lock_id,
        lockmode => DBMS_LOCK.X_MODE,
        timeout => :wait_secs,
        release_on_commit => FALSE);
END;
