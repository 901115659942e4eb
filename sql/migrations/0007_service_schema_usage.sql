-- Let the service's login role look up names in schema app, so that a statement
-- calling app.user_id() can be parsed (prepared) before its transaction switches
-- to a request role, as pgbench's prepared mode does when it measures the same
-- statements as a ceiling. Calling the functions still needs the request role's
-- EXECUTE grant; the login role gets no privilege on any table or function.

grant usage on schema app to chirp_service;
