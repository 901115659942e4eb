-- The review checklist, as queries over the catalog.
begin;
select plan(26);

-- schema_migrations belongs to the migrator, not to this schema: it is left
-- out of the checks below and must only be out of the app roles' reach.
select is(
  array(select relname::text from pg_class
        where relnamespace = 'public'::regnamespace and relkind in ('r', 'p')
          and relname <> 'schema_migrations'
        order by 1),
  array['comments', 'credentials', 'explore_ranks', 'explore_snapshots', 'follows',
        'idempotency_keys', 'likes', 'posts', 'rate_limit_hits', 'refresh_tokens', 'users'],
  'public holds exactly the Chirp tables');

select is_empty($$
  select r from pg_class c, unnest(array['chirp_service', 'chirp_user', 'chirp_anon', 'chirp_auth']) r
  where c.oid = to_regclass('public.schema_migrations')
    and (has_table_privilege(r, c.oid, 'select, insert, update, delete, truncate, references, trigger')
         or has_any_column_privilege(r, c.oid, 'select, insert, update, references'))
$$, 'no app role can touch schema_migrations');

select is_empty($$
  select c.relname from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
    and c.relname <> 'schema_migrations'
    and not (c.relrowsecurity and c.relforcerowsecurity)
$$, 'every table in public has row level security enabled and forced');

select is_empty($$
  select c.relname from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'S', 'v', 'm', 'i')
    and c.relowner <> 'chirp_owner'::regrole
    and c.relname not in ('schema_migrations', 'tap_funky', 'pg_all_foreign_keys')
    and not exists (select from pg_index i where i.indexrelid = c.oid
                    and i.indrelid = to_regclass('public.schema_migrations'))
$$, 'chirp_owner owns every table, index and sequence in public');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
  where p.pronamespace = 'app'::regnamespace and p.proowner <> 'chirp_owner'::regrole
$$, 'chirp_owner owns every function in app');

select is((select nspowner::regrole::text from pg_namespace where nspname = 'app'),
  'chirp_owner', 'chirp_owner owns schema app');

select is_empty($$
  select rolname from pg_roles
  where rolname in ('chirp_owner', 'chirp_service', 'chirp_user', 'chirp_anon', 'chirp_auth')
    and (rolsuper or rolbypassrls or rolcreaterole or rolcreatedb or rolreplication)
$$, 'no app role is superuser, bypasses RLS, or creates roles or databases');

select is_empty($$
  select rolname from pg_roles
  where rolname in ('chirp_owner', 'chirp_user', 'chirp_anon', 'chirp_auth') and rolcanlogin
$$, 'only chirp_service can log in');

select ok((select rolcanlogin and not rolinherit from pg_roles where rolname = 'chirp_service'),
  'chirp_service logs in and inherits nothing');

select is(
  array(select r.rolname::text from pg_auth_members m
        join pg_roles r on r.oid = m.roleid
        where m.member = 'chirp_service'::regrole order by 1),
  array['chirp_anon', 'chirp_auth', 'chirp_user'],
  'chirp_service can switch to exactly chirp_anon, chirp_auth and chirp_user');

select is_empty($$
  select 'class ' || relname from pg_class where relowner = 'chirp_service'::regrole
  union all select 'function ' || proname from pg_proc where proowner = 'chirp_service'::regrole
  union all select 'schema ' || nspname from pg_namespace where nspowner = 'chirp_service'::regrole
  union all select 'type ' || typname from pg_type where typowner = 'chirp_service'::regrole
$$, 'chirp_service owns nothing');

select is_empty($$
  select c.relname from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
    and has_table_privilege('chirp_service', c.oid, 'select, insert, update, delete, truncate, references, trigger')
$$, 'chirp_service has no table privilege of its own');

select is_empty($$
  select r.rolname || ' on ' || t.relname
  from (values ('chirp_user'), ('chirp_anon')) r(rolname)
  cross join (values ('credentials'), ('refresh_tokens')) t(relname)
  where has_table_privilege(r.rolname, 'public.' || t.relname,
                            'select, insert, update, delete, truncate, references, trigger')
     or has_any_column_privilege(r.rolname, 'public.' || t.relname, 'select, insert, update, references')
$$, 'chirp_user and chirp_anon hold no privilege on credentials or refresh_tokens');

select is_empty($$
  select c.relname || ' ' || p.priv from pg_class c
  cross join (values ('insert'), ('update'), ('delete'), ('truncate')) p(priv)
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
    and (has_table_privilege('chirp_anon', c.oid, p.priv)
         or (p.priv in ('insert', 'update') and has_any_column_privilege('chirp_anon', c.oid, p.priv)))
    and c.relname <> 'idempotency_keys'
$$, 'chirp_anon may write nothing but its idempotency keys');

select is_empty($$
  select c.relname from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
    and (has_table_privilege('chirp_user', c.oid, 'update')
         or has_table_privilege('chirp_user', c.oid, 'truncate'))
$$, 'chirp_user has no table-wide update or truncate anywhere');

select ok(not has_table_privilege('chirp_user', 'public.users', 'delete')
          and not has_table_privilege('chirp_auth', 'public.users', 'delete')
          and not has_any_column_privilege('chirp_auth', 'public.users', 'update'),
  'no app role deletes users and chirp_auth never updates them');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
  where p.pronamespace = 'app'::regnamespace
    and (p.proacl is null or exists (select from aclexplode(p.proacl) a where a.grantee = 0))
$$, 'no function in app is executable by PUBLIC');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
  where p.pronamespace = 'app'::regnamespace
    and not exists (select from unnest(p.proconfig) s where s like 'search_path=%')
$$, 'every function in app pins its search_path');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
  where p.pronamespace = 'app'::regnamespace and p.prorettype = 'trigger'::regtype
    and not p.prosecdef
$$, 'trigger functions are security definer');

select ok(has_function_privilege('chirp_user', 'app.user_id()', 'execute')
          and has_function_privilege('chirp_anon', 'app.user_id()', 'execute')
          and has_function_privilege('chirp_auth', 'app.user_id()', 'execute'),
  'app roles can call app.user_id()');

select is((select provolatile::text from pg_proc where oid = 'app.user_id()'::regprocedure),
  's', 'app.user_id() is stable');

-- Policies call app.user_id() through a scalar subquery: once per statement.
select is_empty($$
  select tablename || ': ' || policyname from pg_policies
  where schemaname = 'public'
    and (coalesce(qual, '') || coalesce(with_check, '')) ~ 'app\.user_id\(\)'
    and (select count(*) from regexp_matches(coalesce(qual, '') || coalesce(with_check, ''), 'app\.user_id\(\)', 'g'))
     <> (select count(*) from regexp_matches(coalesce(qual, '') || coalesce(with_check, ''), 'SELECT \(?app\.user_id\(\)', 'g'))
$$, 'every policy wraps app.user_id() as (select app.user_id())');

select is_empty($$
  select tablename || ': ' || policyname from pg_policies
  where schemaname = 'public' and 'public' = any (roles)
$$, 'no policy applies to PUBLIC');

select is_empty($$
  select tablename || ' ' || cmd || ' ' || r from pg_policies, unnest(roles) r
  where schemaname = 'public'
  group by tablename, cmd, r having count(*) > 1
$$, 'one policy per command per role');

-- Foreign keys and cascades need an index on the referencing side.
select is_empty($$
  select c.conrelid::regclass || ' ' || c.conname from pg_constraint c
  where c.contype = 'f' and c.connamespace = 'public'::regnamespace
    and not exists (select from pg_index i
                    where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1])
$$, 'every foreign key leads an index');

select is_empty($$
  select c.relname from pg_class c
  where c.relkind = 'v' and c.relowner = 'chirp_owner'::regrole
    and not coalesce('security_invoker=true' = any (c.reloptions), false)
$$, 'no view of ours runs with its owner''s rights');

select * from finish();
rollback;
