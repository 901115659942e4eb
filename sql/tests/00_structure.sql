-- The review checklist, as queries over the catalog.
begin;
select plan(35);

-- schema_migrations belongs to the migrator, not to this schema: it is left
-- out of the checks below and must only be out of the app roles' reach.
select is(
  array(select relname::text from pg_class
        where relnamespace = 'public'::regnamespace and relkind in ('r', 'p')
          and relname <> 'schema_migrations'
        order by 1),
  array['blocks', 'comments', 'credentials', 'explore_ranks', 'explore_snapshots', 'follows',
        'home_timeline', 'home_timeline_pulled', 'idempotency_keys', 'likes', 'mutes', 'notification_actors',
        'notification_reads', 'notifications', 'posts', 'pulled_author_slots', 'pulled_follow_bits', 'pulled_posts',
        'rate_limit_hits', 'refresh_tokens', 'users', 'write_marks'],
  'public holds exactly the Chirp tables');

select is_empty($$
  select r from pg_class c, unnest(array['chirp_service', 'chirp_auth_service', 'chirp_user', 'chirp_anon', 'chirp_auth', 'chirp_signin']) r
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
  where rolname in ('chirp_owner', 'chirp_service', 'chirp_auth_service', 'chirp_user', 'chirp_user_outside_blocks',
                    'chirp_anon', 'chirp_auth', 'chirp_signin')
    and (rolsuper or rolbypassrls or rolcreaterole or rolcreatedb or rolreplication)
$$, 'no app role is superuser, bypasses RLS, or creates roles or databases');

select is_empty($$
  select rolname from pg_roles
  where rolname in ('chirp_owner', 'chirp_user', 'chirp_user_outside_blocks', 'chirp_anon', 'chirp_auth', 'chirp_signin')
    and rolcanlogin
$$, 'only chirp_service and chirp_auth_service can log in');

select ok((select bool_and(rolcanlogin and not rolinherit) from pg_roles
           where rolname in ('chirp_service', 'chirp_auth_service')),
  'chirp_service and chirp_auth_service log in and inherit nothing');

select is(
  array(select r.rolname::text from pg_auth_members m
        join pg_roles r on r.oid = m.roleid
        where m.member = 'chirp_service'::regrole order by 1),
  array['chirp_anon', 'chirp_auth', 'chirp_user', 'chirp_user_outside_blocks'],
  'chirp_service can switch to exactly chirp_anon, chirp_auth (which holds nothing since 0021), chirp_user and chirp_user_outside_blocks');

select is(
  array(select r.rolname::text from pg_auth_members m
        join pg_roles r on r.oid = m.roleid
        where m.member = 'chirp_user_outside_blocks'::regrole order by 1)
    || array(select rolname::text from pg_roles where rolname = 'chirp_user_outside_blocks' and rolinherit),
  array['chirp_user', 'chirp_user_outside_blocks'],
  'chirp_user_outside_blocks is chirp_user (a member that inherits it) and nothing more');

select is(
  array(select r.rolname::text from pg_auth_members m
        join pg_roles r on r.oid = m.roleid
        where m.member = 'chirp_auth_service'::regrole order by 1),
  array['chirp_signin'],
  'chirp_auth_service can switch to chirp_signin and nothing else');

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

select ok(not has_schema_privilege('chirp_service', 'app', 'usage'),
  'chirp_service cannot even look up names in schema app');

-- What each request role may do, privilege by privilege (column privileges
-- list their columns). Each is used by some statement of the service; a grant
-- that nothing uses is one to take back.
select set_eq($$
  select r || ' ' || p || ' ' || c.relname ||
         case when has_table_privilege(r, c.oid, p) then ''
              else ' (' || (select string_agg(a.attname, ', ' order by a.attname) from pg_attribute a
                            where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                              and has_column_privilege(r, c.oid, a.attnum, p)) || ')' end
  from pg_class c
  cross join unnest(array['chirp_service', 'chirp_auth_service', 'chirp_user', 'chirp_anon', 'chirp_auth', 'chirp_signin']) r
  cross join unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and c.relname <> 'schema_migrations'
    and (has_table_privilege(r, c.oid, p)
         or (p in ('select', 'insert', 'update', 'references') and has_any_column_privilege(r, c.oid, p)))
$$, array[
  'chirp_anon select comments', 'chirp_anon select explore_ranks', 'chirp_anon select explore_snapshots',
  'chirp_anon select follows', 'chirp_anon select likes', 'chirp_anon select posts', 'chirp_anon select users',
  'chirp_signin select credentials', 'chirp_signin insert credentials (password_hash, user_id)',
  'chirp_signin update credentials (password_hash, updated_at)',
  'chirp_signin select follows',
  'chirp_signin select idempotency_keys', 'chirp_signin insert idempotency_keys (idempotency_key, owner_key, request_hash)',
  'chirp_signin update idempotency_keys (created_at, location, request_hash, response_body, status_code)',
  'chirp_signin select rate_limit_hits', 'chirp_signin insert rate_limit_hits (bucket, hits, window_start)',
  'chirp_signin update rate_limit_hits (hits)', 'chirp_signin delete rate_limit_hits',
  'chirp_signin select refresh_tokens', 'chirp_signin insert refresh_tokens (expires_at, family_id, token_hash, user_id)',
  'chirp_signin update refresh_tokens (revoked_at, used_at)',
  'chirp_signin select users', 'chirp_signin insert users (display_name, id, username)',
  'chirp_user select blocks', 'chirp_user insert blocks (blocked_id, blocker_id)', 'chirp_user delete blocks',
  'chirp_user select mutes', 'chirp_user insert mutes (muted_id, muter_id)', 'chirp_user delete mutes',
  'chirp_user select comments', 'chirp_user insert comments (author_id, body, id, parent_id, post_id)',
  'chirp_user update comments (body)', 'chirp_user delete comments',
  'chirp_user select explore_ranks', 'chirp_user select explore_snapshots',
  'chirp_user select follows', 'chirp_user insert follows (followee_id, follower_id)', 'chirp_user delete follows',
  'chirp_user select home_timeline',
  'chirp_user select idempotency_keys', 'chirp_user insert idempotency_keys (idempotency_key, owner_key, request_hash)',
  'chirp_user update idempotency_keys (created_at, location, request_hash, response_body, status_code)',
  'chirp_user select likes', 'chirp_user insert likes (post_id, user_id)', 'chirp_user delete likes',
  'chirp_user select notification_actors', 'chirp_user select notifications',
  'chirp_user select notification_reads', 'chirp_user insert notification_reads (read_at, read_id, user_id)',
  'chirp_user update notification_reads (read_at, read_id)',
  'chirp_user select posts', 'chirp_user insert posts (author_id, body, id)', 'chirp_user update posts (body)',
  'chirp_user delete posts',
  'chirp_user select users', 'chirp_user update users (bio, display_name)',
  'chirp_user select write_marks'
], 'the login and request roles hold exactly the table privileges the service uses');

select set_eq($$
  select r || ' ' || p.oid::regprocedure from pg_proc p
  cross join unnest(array['chirp_service', 'chirp_auth_service', 'chirp_user', 'chirp_anon', 'chirp_auth', 'chirp_signin']) r
  where p.pronamespace = 'app'::regnamespace and has_function_privilege(r, p.oid, 'execute')
$$, array[
  'chirp_anon app.explore_snapshot(integer,integer)', 'chirp_anon app.planned_rows(text,text[])', 'chirp_anon app.user_id()',
  'chirp_anon app.hour_number(timestamp with time zone)', 'chirp_anon app.day_number(timestamp with time zone)',
  'chirp_anon app.posts_matching_newest(tsquery,integer)', 'chirp_anon app.posts_matching(tsquery,integer)',
  'chirp_anon app.search_day_words(tsvector,timestamp with time zone)', 'chirp_anon app.search_words_on_day(tsquery,integer)',
  'chirp_anon app.search_in_hour(tsquery,integer)', 'chirp_anon app.search_in_day(tsquery,integer)',
  'chirp_signin app.expired_before(regclass)', 'chirp_signin app.purge_expired(integer)', 'chirp_signin app.user_id()',
  'chirp_signin app.delete_account(uuid,uuid)',
  'chirp_user app.expired_before(regclass)', 'chirp_user app.explore_snapshot(integer,integer)',
  'chirp_user app.planned_rows(text,text[])', 'chirp_user app.user_id()',
  'chirp_user app.hour_number(timestamp with time zone)', 'chirp_user app.day_number(timestamp with time zone)',
  'chirp_user app.posts_matching_newest(tsquery,integer)', 'chirp_user app.posts_matching(tsquery,integer)', 'chirp_user app.require_visible(xid8)',
  'chirp_user app.require_session(uuid)',
  'chirp_user app.search_day_words(tsvector,timestamp with time zone)', 'chirp_user app.search_words_on_day(tsquery,integer)',
  'chirp_user app.search_in_hour(tsquery,integer)', 'chirp_user app.search_in_day(tsquery,integer)',
  'chirp_anon app.viewer_in_block()', 'chirp_anon app.user_hidden_by_block(uuid)',
  'chirp_user app.viewer_in_block()', 'chirp_user app.user_hidden_by_block(uuid)', 'chirp_user app.blocked_with(uuid)',
  'chirp_user app.post_author(uuid)', 'chirp_user app.comment_author(uuid)', 'chirp_user app.post_hidden_by_block(uuid)',
  'chirp_user app.home_feed(timestamp with time zone,uuid,timestamp with time zone,uuid,integer)'
], 'the login and request roles may call exactly the functions the service calls');

-- The counter, timeline and notification triggers update as chirp_owner, whose
-- update policies admit any row: its column privileges are what keep it to the
-- counters, to when each follow's home timeline begins and to a notification
-- group's newest time and size.
select set_eq($$
  select c.relname || '.' || a.attname
  from pg_policies p
  join pg_class c on c.relname = p.tablename and c.relnamespace = 'public'::regnamespace
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  where p.schemaname = 'public' and p.cmd in ('UPDATE', 'ALL') and 'chirp_owner' = any (p.roles)
    and has_column_privilege('chirp_owner', c.oid, a.attnum, 'update')
$$, array['comments.reply_count', 'follows.timeline_from', 'notifications.actor_count', 'notifications.latest_at',
          'posts.comment_count', 'posts.like_count', 'pulled_follow_bits.authors', 'pulled_follow_bits.latest_pull',
          'users.follower_count', 'users.following_count', 'users.post_count', 'write_marks.xid'],
  'where a policy lets chirp_owner update rows, it may change only counters, timeline_from, followed slots, write marks and notification groups');

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
$$, 'chirp_anon may write nothing');

select is_empty($$
  select c.relname from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
    and (has_table_privilege('chirp_user', c.oid, 'update')
         or has_table_privilege('chirp_user', c.oid, 'truncate'))
$$, 'chirp_user has no table-wide update or truncate anywhere');

select ok(not has_table_privilege('chirp_user', 'public.users', 'delete')
          and not has_table_privilege('chirp_signin', 'public.users', 'delete')
          and not has_any_column_privilege('chirp_signin', 'public.users', 'update'),
  'no app role deletes users and chirp_signin never updates them');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
  where p.pronamespace = 'app'::regnamespace
    and (p.proacl is null or exists (select from aclexplode(p.proacl) a where a.grantee = 0))
$$, 'no function in app is executable by PUBLIC');

-- A body in standard SQL (RETURN …) is resolved when the function is created,
-- so no search_path reaches it; left unpinned, the planner can inline it.
select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
  where p.pronamespace = 'app'::regnamespace and p.prosqlbody is null
    and not exists (select from unnest(p.proconfig) s where s like 'search_path=%')
$$, 'every function in app pins its search_path, or is resolved when created');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
  where p.pronamespace = 'app'::regnamespace and p.prorettype = 'trigger'::regtype
    and not p.prosecdef
$$, 'trigger functions are security definer');

select ok(has_function_privilege('chirp_user', 'app.user_id()', 'execute')
          and has_function_privilege('chirp_anon', 'app.user_id()', 'execute')
          and has_function_privilege('chirp_signin', 'app.user_id()', 'execute'),
  'app roles can call app.user_id()');

select is((select provolatile::text from pg_proc where oid = 'app.user_id()'::regprocedure),
  's', 'app.user_id() is stable');

-- The helpers every request's policies, triggers and feed call are inlined
-- into the calling statement (0032), not called: a call of one with a pinned
-- search_path costs a function call that sets and restores it.
create function pg_temp.plan_of(query text) returns text language plpgsql as $$
declare
  line text;
  plan text := '';
begin
  for line in execute 'explain (verbose, costs off) ' || query loop
    plan := plan || line || E'\n';
  end loop;
  return plan;
end
$$;
select doesnt_match(
  pg_temp.plan_of($$select app.user_id(), app.expired_before('home_timeline'), app.signing_up(),
    app.home_timeline_threshold(), app.home_timeline_backfill()$$),
  'app\.[a-z_]+\(',
  'the planner inlines the helpers every request calls');

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

-- How long rows live is written in app.expired_before alone.
select is_empty($$
  select tablename || ': ' || policyname from pg_policies
  where schemaname = 'public'
    and (coalesce(qual, '') || coalesce(with_check, '')) ~* 'now\(\)|clock_timestamp|interval'
$$, 'no policy reads the clock: what has expired comes from app.expired_before');

select is_empty($$
  select p.oid::regprocedure::text from pg_proc p
  where p.pronamespace = 'app'::regnamespace and p.oid <> 'app.expired_before(regclass)'::regprocedure
    and p.prosrc ~* 'interval\s*'''
$$, 'no other function in app spells a lifetime');

select * from finish();
rollback;
