-- Creates carry the id the service chose for the new row (issue 26): when the
-- connection breaks as the transaction commits and the server says it
-- committed, the service reads the row back by that id and answers 201, instead
-- of telling the client "failed" about a write that exists. The policies that
-- decide whose row it is are unchanged; an id already taken is a unique
-- violation, as before.

set local search_path = public;
set local role chirp_owner;

grant insert (id) on posts to chirp_user;
grant insert (id) on comments to chirp_user;
grant insert (id) on users to chirp_signin;
