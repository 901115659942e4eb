-- Roles are cluster-wide and shared by every database in the cluster, so each
-- is created only when missing, and an existing one is checked, not trusted.
-- Creating a role or a membership tolerates a twin made at the same moment by a
-- migration of another database in the same cluster.
create function pg_temp.create_role_once(name text, attributes text) returns void
  language plpgsql
as $$
begin
  if not exists (select from pg_roles where rolname = name) then
    execute format('create role %I %s', name, attributes);
  end if;
exception
  when duplicate_object or unique_violation then
    null;
end
$$;

select pg_temp.create_role_once('chirp_owner', 'nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls');
select pg_temp.create_role_once('chirp_user', 'nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls');
select pg_temp.create_role_once('chirp_anon', 'nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls');
select pg_temp.create_role_once('chirp_auth', 'nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls');
-- NOINHERIT: the service holds no privilege until it picks a role per request.
select pg_temp.create_role_once('chirp_service', 'login noinherit nosuperuser nocreatedb nocreaterole noreplication nobypassrls');

-- A role made earlier by hand with a dangerous attribute would silently defeat
-- row-level security: stop here instead.
do $$
declare
  bad text;
begin
  select string_agg(rolname, ', ' order by rolname) into bad
  from pg_roles
  where rolname in ('chirp_owner', 'chirp_user', 'chirp_anon', 'chirp_auth', 'chirp_service')
    and (rolsuper or rolbypassrls or rolcreaterole or rolcreatedb or rolreplication
         or (rolcanlogin and rolname <> 'chirp_service')
         or (rolname = 'chirp_service' and (rolinherit or not rolcanlogin)));
  if bad is not null then
    raise exception 'existing roles have unsafe attributes: %', bad
      using errcode = 'invalid_role_specification',
            hint = 'only chirp_service may log in, it must be NOINHERIT, and none may be superuser, bypass RLS, or create roles or databases';
  end if;
end
$$;

create function pg_temp.grant_role_once(granted text, grantee text) returns void
  language plpgsql
as $$
begin
  execute format('grant %I to %I', granted, grantee);
exception
  when unique_violation then
    null;
end
$$;

select pg_temp.grant_role_once('chirp_user', 'chirp_service');
select pg_temp.grant_role_once('chirp_anon', 'chirp_service');
select pg_temp.grant_role_once('chirp_auth', 'chirp_service');

-- The migrator must be able to SET ROLE chirp_owner; a superuser already can,
-- a CREATEROLE database owner needs the membership.
do $$
begin
  if not (select rolsuper from pg_roles where rolname = current_user) then
    perform pg_temp.grant_role_once('chirp_owner', current_user);
  end if;
end
$$;

do $$
begin
  execute format('grant connect on database %I to chirp_service', current_database());
end
$$;
