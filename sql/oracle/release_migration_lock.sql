-- name: release_migration_lock
-- Releases the user lock taken by take_migration_lock. A PL/SQL block, so it
-- ends with `;`.
-- binds: :lock_id number  the migration lock id;
--        out :status number  DBMS_LOCK.RELEASE's result (0 = released, 4 = not held)
-- returns: :status
-- locks: releases the user lock :lock_id
BEGIN
    :status := DBMS_LOCK.RELEASE(id => :lock_id);
END;
