-- name: select_server_version
-- What server this is, for `flightstate doctor`: flightstate needs
-- PostgreSQL 13 or later.
-- binds: $1 text  server_version_num
--        $2 text  server_version
-- returns: version_num (integer, e.g. 150019), version (text, e.g. 15.19)
-- locks: none
SELECT current_setting($1)::integer AS version_num,
       current_setting($2) AS version
