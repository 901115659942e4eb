-- The request roles stop being a way into credentials (issue 26). PostgreSQL
-- checks SET ROLE against the session's login, not the role in effect, and
-- chirp_service was a member of chirp_user, chirp_anon and chirp_auth: from
-- any request's transaction set_config('role', 'chirp_auth', true) succeeded,
-- so one injected statement anywhere, or a leaked service password, read and
-- wrote every password hash and refresh token.
--
-- Sign-in moves to a login of its own. chirp_auth_service (LOGIN, NOINHERIT)
-- can become chirp_signin and nothing else; chirp_signin takes over every
-- privilege and policy chirp_auth held in this database, and chirp_auth is
-- left with none. chirp_service stays a member of chirp_auth, which 0001 of
-- any other database in the cluster would grant again anyway, but reaches
-- nothing through it. The service keeps a small pool on chirp_auth_service for
-- sign-up, login, tokens, password changes and the purge; chirp_service
-- reaches refresh tokens only through app.require_session (0019), a yes or no
-- about one session of the viewer's, and credentials not at all.

-- Roles are cluster-wide: created when missing, checked when present, and a
-- twin made at the same moment by another database's migration tolerated
-- (a concurrent catalog change surfaces as a unique violation or as an
-- internal "tuple concurrently updated" error; the end state is checked).
create function pg_temp.ensure_role(name text, options text) returns void
  language plpgsql
as $$
begin
  if not exists (select from pg_roles where rolname = name) then
    execute format('create role %I %s', name, options);
  end if;
exception
  when duplicate_object or unique_violation or internal_error then
    null;
end
$$;

create function pg_temp.ensure_member(granted text, grantee text) returns void
  language plpgsql
as $$
begin
  if not pg_has_role(grantee, granted, 'member') then
    execute format('grant %I to %I', granted, grantee);
  end if;
exception
  when unique_violation or internal_error then
    if not pg_has_role(grantee, granted, 'member') then
      raise;
    end if;
end
$$;

select pg_temp.ensure_role('chirp_signin', 'nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls');
select pg_temp.ensure_role('chirp_auth_service', 'login noinherit nosuperuser nocreatedb nocreaterole noreplication nobypassrls');
select pg_temp.ensure_member('chirp_signin', 'chirp_auth_service');

do $$
declare
  bad text;
begin
  select string_agg(rolname, ', ' order by rolname) into bad
  from pg_roles
  where rolname in ('chirp_signin', 'chirp_auth_service')
    and (rolsuper or rolbypassrls or rolcreaterole or rolcreatedb or rolreplication
         or (rolname = 'chirp_signin' and rolcanlogin)
         or (rolname = 'chirp_auth_service' and (rolinherit or not rolcanlogin)));
  if bad is not null then
    raise exception 'existing roles have unsafe attributes: %', bad
      using errcode = 'invalid_role_specification',
            hint = 'chirp_auth_service must be a NOINHERIT login, chirp_signin no login, and neither superuser, bypass RLS, or create roles or databases';
  end if;
  if exists (select from pg_auth_members m where m.member = 'chirp_auth_service'::regrole
             and m.roleid <> 'chirp_signin'::regrole) then
    raise exception 'chirp_auth_service may become chirp_signin and nothing else'
      using errcode = 'invalid_role_specification';
  end if;
  execute format('grant connect on database %I to chirp_auth_service', current_database());
end
$$;

-- Everything chirp_auth held in this database passes to chirp_signin, as its
-- owner granted it: table and column privileges, function privileges, and the
-- policies naming it.
set local search_path = public;
set local role chirp_owner;

do $$
declare
  item record;
begin
  for item in
    select c.relname, p.privilege
    from pg_class c
    cross join unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p(privilege)
    where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
      and has_table_privilege('chirp_auth', c.oid, p.privilege)
  loop
    execute format('grant %s on table %I to chirp_signin', item.privilege, item.relname);
  end loop;
  for item in
    select c.relname, a.attname, p.privilege
    from pg_class c
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    cross join unnest(array['select', 'insert', 'update', 'references']) p(privilege)
    where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
      and not has_table_privilege('chirp_auth', c.oid, p.privilege)
      and has_column_privilege('chirp_auth', c.oid, a.attnum, p.privilege)
  loop
    execute format('grant %s (%I) on table %I to chirp_signin', item.privilege, item.attname, item.relname);
  end loop;
  for item in
    select p.oid::regprocedure as function
    from pg_proc p
    where p.pronamespace = 'app'::regnamespace and has_function_privilege('chirp_auth', p.oid, 'execute')
  loop
    execute format('grant execute on function %s to chirp_signin', item.function);
  end loop;
  for item in
    select pol.polname, pol.polrelid::regclass as relation,
           (select string_agg(case when r = 'chirp_auth'::regrole then 'chirp_signin' else quote_ident(r::regrole::text) end, ', ')
            from unnest(pol.polroles) r) as roles
    from pg_policy pol
    where 'chirp_auth'::regrole = any(pol.polroles)
  loop
    execute format('alter policy %I on %s to %s', item.polname, item.relation, item.roles);
  end loop;

  -- chirp_auth keeps nothing.
  for item in
    select c.relname from pg_class c
    where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and c.relowner = 'chirp_owner'::regrole
  loop
    execute format('revoke all on table %I from chirp_auth', item.relname);
  end loop;
  revoke all on all functions in schema app from chirp_auth;
  revoke usage on schema app from chirp_auth;
end
$$;

grant usage on schema app to chirp_signin;
