-- name: set_current_schema
-- Oracle only: makes unqualified names of this session resolve in the schema
-- owner's schema, for an application user that is not the owner (the
-- `schema` of the oracle:// URL). Run once per session, when it is opened.
-- ALTER SESSION takes no bind, so the name is bound into a PL/SQL block and
-- checked by DBMS_ASSERT.SCHEMA_NAME (an existing schema, or ORA-44001)
-- before it is spliced; the statement text never varies. Needs no privilege
-- beyond the grants on the owner's objects (docs/oracle.md).
-- A PL/SQL block, so it ends with `;`.
-- binds: :schema_name varchar2  the owner, upper case
-- returns: nothing
-- locks: none
BEGIN
    EXECUTE IMMEDIATE 'ALTER SESSION SET CURRENT_SCHEMA = '
        || DBMS_ASSERT.SCHEMA_NAME(:schema_name);
END;
