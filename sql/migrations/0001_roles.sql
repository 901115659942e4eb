-- Roles are cluster-wide and shared by every database in the cluster, so each
-- is created only when missing, and an existing one is checked, not trusted.
do $$
begin
  if not exists (select from pg_roles where rolname = 'chirp_owner') then
    create role chirp_owner nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'chirp_user') then
    create role chirp_user nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'chirp_anon') then
    create role chirp_anon nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'chirp_auth') then
    create role chirp_auth nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls;
  end if;
  -- NOINHERIT: the service holds no privilege until it picks a role per request.
  if not exists (select from pg_roles where rolname = 'chirp_service') then
    create role chirp_service login noinherit nosuperuser nocreatedb nocreaterole noreplication nobypassrls;
  end if;
end
$$;

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

grant chirp_user, chirp_anon, chirp_auth to chirp_service;

-- The migrator must be able to SET ROLE chirp_owner; a superuser already can,
-- a CREATEROLE database owner needs the membership.
do $$
begin
  if not (select rolsuper from pg_roles where rolname = current_user) then
    execute format('grant chirp_owner to %I', current_user);
  end if;
end
$$;

do $$
begin
  execute format('grant connect on database %I to chirp_service', current_database());
end
$$;
