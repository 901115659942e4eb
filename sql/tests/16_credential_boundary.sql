-- No login role serving requests reaches credentials or refresh tokens (0021):
-- for every login role and every role it can become (SET ROLE is checked
-- against the login, so that is every role it is a member of, at any depth),
-- no privilege on credentials or refresh_tokens, and no function that touches
-- them except the narrow ones named here. Only chirp_auth_service, the auth
-- pool's login, can become chirp_signin, and chirp_auth, which chirp_service
-- can still become, holds nothing.
begin;
\ir support/helpers.sql
select plan(6);

-- Every role a login can become, itself included.
create temporary view reachable as
  select l.rolname::text as login, r.rolname::text as role
  from pg_roles l cross join pg_roles r
  where l.rolcanlogin and l.rolname in ('chirp_service', 'chirp_auth_service')
    and pg_has_role(l.oid, r.oid, 'member');

select set_eq($$select login || ' ' || role from reachable$$, array[
  'chirp_service chirp_service', 'chirp_service chirp_user', 'chirp_service chirp_user_outside_blocks',
  'chirp_service chirp_anon', 'chirp_service chirp_auth',
  'chirp_auth_service chirp_auth_service', 'chirp_auth_service chirp_signin'
], 'each login can become exactly its own request roles');

select is_empty($$
  select login || ' as ' || role || ': ' || p || ' ' || t
  from reachable
  cross join unnest(array['credentials', 'refresh_tokens']) t
  cross join unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p
  where login = 'chirp_service'
    and (has_table_privilege(role, ('public.' || t)::regclass, p)
         or (p in ('select', 'insert', 'update', 'references') and has_any_column_privilege(role, ('public.' || t)::regclass, p)))
$$, 'the service login, through any role it can become, holds no privilege on credentials or refresh tokens');

-- Functions that run with their owner's rights and mention either table: the
-- service login may call only the session check.
select set_eq($$
  select distinct role || ' ' || p.oid::regprocedure
  from reachable
  join pg_proc p on p.prosecdef and has_function_privilege(role, p.oid, 'execute')
  where login = 'chirp_service' and p.pronamespace = 'app'::regnamespace
    and (p.prosrc ~ '\mcredentials\M' or p.prosrc ~ '\mrefresh_tokens\M')
$$, array['chirp_user app.require_session(uuid)', 'chirp_user_outside_blocks app.require_session(uuid)'],
  'the service login reaches refresh tokens only through app.require_session, and credentials not at all');

-- Tried, not only looked up: as the service login itself (a role switch is
-- checked against the session's user, which the test's superuser would pass),
-- from a user and an anonymous transaction.
set local session authorization chirp_service;
select set_config('role', 'chirp_user', true);
select throws_ok($$select set_config('role', 'chirp_signin', true)$$, '42501', null,
  'a chirp_user transaction cannot switch to chirp_signin');
select set_config('role', 'chirp_anon', true);
select throws_ok($$select set_config('role', 'chirp_signin', true)$$, '42501', null,
  'a chirp_anon transaction cannot switch to chirp_signin');
select lives_ok($$select set_config('role', 'chirp_user', true)$$,
  'the control: it can switch between its own request roles');
reset session authorization;

select * from finish();
rollback;
