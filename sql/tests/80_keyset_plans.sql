-- Every list is one index range scan with no sort, as an anonymous caller
-- (so with row-level security in play) and with generic plans (what the
-- service's prepared statements get). The viewer's flags cost one probe per
-- returned row, and explore's pages read a snapshot's ranks in order.
begin;
\ir support/helpers.sql
select plan(42);

-- True when the plan scans the named index with every condition in the
-- index (no Filter), and neither sorts nor seq-scans.
create function pg_temp.scans_only(sql text, index_name text) returns boolean
  language sql as $$
  select bool_or(l ~ ('(Index|Index Only|Bitmap Index) Scan (Backward )?(using|on) ' || index_name || '\M'))
         and not bool_or(l ~ '(^|-> +)(Incremental )?Sort\M|Seq Scan|^ *Filter:')
  from pg_temp.plan_of(sql) l
$$;

-- True when a flag column costs one probe of the named index per row: its
-- subplan's index condition names the outer row (probe, as VERBOSE prints it),
-- and no subplan is hashed (a hashed one reads every row of the viewer first).
create function pg_temp.probes_per_row(sql text, index_name text, probe text) returns boolean
  language sql as $$
  select bool_or(l ~ ('Index (Only )?Scan using ' || index_name || '\M'))
         and bool_or(l ~ '^ *Index Cond: ' and strpos(l, probe) > 0)
         and not bool_or(l ~ 'hashed SubPlan')
  from pg_temp.plan_of(sql, 'verbose, costs off') l
$$;

-- True when the plan reads the named index in order (no bitmap scan of it)
-- and never sorts, whatever it joins.
create function pg_temp.reads_in_order(sql text, index_name text) returns boolean
  language sql as $$
  select bool_or(l ~ ('(Index|Index Only) Scan (Backward )?using ' || index_name || '\M'))
         and not bool_or(l ~ ('(^|-> +)(Incremental )?Sort\M|Bitmap Index Scan on ' || index_name || '\M'))
  from pg_temp.plan_of(sql) l
$$;

-- True when some line of the plan matches present and none matches absent.
create function pg_temp.plan_has(sql text, present text, absent text) returns boolean
  language sql as $$
  select bool_or(l ~ present) and not bool_or(l ~ absent) from pg_temp.plan_of(sql) l
$$;

-- True when every scan of the named index is the only child of a Limit node.
create function pg_temp.limited_scan(sql text, index_name text) returns boolean
  language sql as $$
  with lines as (
    select l, n from pg_temp.plan_of(sql) with ordinality p(l, n)
  ), scans as (
    select n from lines where l ~ ('Index Scan (Backward )?using ' || index_name || '\M')
  )
  select count(*) > 0 and bool_and((
           select prev.l ~ '^ *(-> +)?Limit\M' from lines prev
           where prev.n < scans.n and (prev.l ~ '->' or prev.n = 1) order by prev.n desc limit 1))
  from scans
$$;

-- The rows the scans of the named index returned, run for real.
create function pg_temp.rows_read(sql text, index_name text) returns bigint
  language plpgsql as $$
declare
  plan json;
begin
  execute 'explain (analyze, costs off, timing off, summary off, format json) ' || sql into plan;
  return (
    with recursive nodes(node) as (
      select plan -> 0 -> 'Plan'
      union all
      select child from nodes, json_array_elements(coalesce(node -> 'Plans', '[]')) child
    )
    select sum((node ->> 'Actual Rows')::bigint * (node ->> 'Actual Loops')::bigint)
    from nodes where node ->> 'Index Name' = index_name);
end
$$;

-- 1,000 users (50 of them post, 100 posts each), 5,000 likes, 10,000 follows,
-- 5,000 comments and as many replies; and a fan who likes 2,000 of the posts
-- and follows 500 of the users.
-- ANALYZE after each step: on never-analyzed tables the planner may probe
-- posts by id through posts_created_at_id_idx (a full index scan per row).
insert into users (username) select 'user' || g from generate_series(1, 1000) g;
analyze users;
create temp table user_ids as select array_agg(id order by username) a from users;
insert into posts (author_id, body, created_at)
  select (select a from user_ids)[1 + g % 50],
         'post ' || g || ' about ' || (array['swift', 'postgres', 'coffee', 'cats'])[1 + g % 4],
         now() - (g || ' minutes')::interval
  from generate_series(1, 5000) g;
analyze posts;
insert into likes (user_id, post_id, created_at)
  select (select a from user_ids)[1 + (row_number() over (order by id))::integer % 1000], id,
         created_at + interval '1 minute'
  from posts;
insert into users (id, username) values ('00000000-0000-4000-a000-0000000000f0', 'fan');
insert into likes (user_id, post_id)
  select '00000000-0000-4000-a000-0000000000f0', id from posts order by created_at desc limit 2000;
insert into follows (follower_id, followee_id)
  select '00000000-0000-4000-a000-0000000000f0', a from unnest((select a[1:500] from user_ids)) a;
-- Users are followed by many, as real users are: 200 followers each for 50 of
-- them (none posts, so no home timeline is copied). An index led by the
-- followee (the followers list's) would read all of a user's followers for one
-- viewer's follow; with these statistics the planner sees that, as it does in
-- production, and the flag's probe stays on the primary key.
insert into follows (follower_id, followee_id)
  select f, e from unnest((select a[101:300] from user_ids)) f, unnest((select a[51:100] from user_ids)) e;
select a[51] as followed from user_ids \gset
insert into comments (post_id, author_id, body)
  select id, author_id, 'first' from posts;
analyze comments;
insert into comments (post_id, parent_id, author_id, body)
  select post_id, id, author_id, 'reply' from comments;
analyze users, posts, likes, comments, follows;

set local plan_cache_mode = force_generic_plan;
set local role chirp_service;
set local role chirp_anon;

prepare timeline(timestamptz, uuid) as
  select * from posts where (created_at, id) < ($1, $2) order by created_at desc, id desc limit 21;
prepare user_posts(uuid, timestamptz, uuid) as
  select * from posts where author_id = $1 and (created_at, id) < ($2, $3)
  order by created_at desc, id desc limit 21;
prepare explore(integer, uuid) as
  select * from posts where (like_count, id) < ($1, $2) order by like_count desc, id desc limit 21;
prepare likers(uuid, timestamptz, uuid) as
  select user_id, created_at from likes where post_id = $1 and (created_at, user_id) < ($2, $3)
  order by created_at desc, user_id desc limit 21;
prepare thread(uuid, timestamptz, uuid) as
  select * from comments where post_id = $1 and parent_id is null and (created_at, id) > ($2, $3)
  order by created_at, id limit 21;
prepare replies(uuid, timestamptz, uuid) as
  select * from comments where parent_id = $1 and (created_at, id) > ($2, $3)
  order by created_at, id limit 21;
prepare search_posts(text) as
  select id from posts where search_vector @@ websearch_to_tsquery('simple', $1);
prepare search_usernames(text) as
  select id from users where username like $1 || '%';
prepare search_display_names(text) as
  select id from users where display_name ilike '%' || $1 || '%';

select ok(pg_temp.scans_only(
  $$ select * from posts
     where (created_at, id) < ('2026-01-01 00:00:00+00', '00000000-0000-4000-b000-000000000000')
     order by created_at desc, id desc limit 21 $$,
  'posts_created_at_id_idx'), 'global timeline (literal values) uses posts_created_at_id_idx');
select ok(pg_temp.scans_only($$ execute timeline(now(), gen_random_uuid()) $$, 'posts_created_at_id_idx'),
  'global timeline page: one range scan of posts_created_at_id_idx');
select ok(pg_temp.scans_only($$ execute user_posts(gen_random_uuid(), now(), gen_random_uuid()) $$,
  'posts_author_created_at_id_idx'), 'a user''s posts: one range scan of posts_author_created_at_id_idx');
select ok(pg_temp.scans_only($$ execute explore(10, gen_random_uuid()) $$, 'posts_like_count_id_idx'),
  'explore''s ranking: one range scan of posts_like_count_id_idx');
select ok(pg_temp.scans_only($$ execute likers(gen_random_uuid(), now(), gen_random_uuid()) $$,
  'likes_post_created_at_user_idx'), 'likers: one range scan of likes_post_created_at_user_idx');
select ok(pg_temp.scans_only($$ execute thread(gen_random_uuid(), '-infinity', gen_random_uuid()) $$,
  'comments_top_level_idx'), 'top-level comments: one range scan of comments_top_level_idx');
select ok(pg_temp.scans_only($$ execute replies(gen_random_uuid(), '-infinity', gen_random_uuid()) $$,
  'comments_replies_idx'), 'replies: one range scan of comments_replies_idx');
select ok(pg_temp.scans_only($$ execute search_posts('postgres cats') $$, 'posts_search_idx'),
  'post search uses posts_search_idx');
-- 1,000 users are still few enough to read whole; only show the index serves.
set local enable_seqscan = off;
select ok(pg_temp.scans_only($$ execute search_usernames('user12') $$, 'users_username_trgm_idx'),
  'username prefix search can use users_username_trgm_idx');
select ok(pg_temp.scans_only($$ execute search_display_names('bob') $$, 'users_display_name_trgm_idx'),
  'display name search can use users_display_name_trgm_idx');
reset enable_seqscan;

-- The two ways of post search (SearchQueries), under the settings every search
-- runs with: generic plans, no sequential scans. Whatever the word, reading
-- every match goes through the GIN index, and walking the timeline reads no
-- more posts than its LIMIT allows.
set local enable_seqscan = off;
prepare every_match(text) as
  select id from (select id, created_at from posts
                  where search_vector @@ websearch_to_tsquery('simple', $1) offset 0) m
  order by created_at desc, id desc limit 20;
prepare walk(text, bigint) as
  select w.id from (select id, created_at, search_vector from posts
                    order by created_at desc, id desc limit $2) w
  where w.search_vector @@ websearch_to_tsquery('simple', $1)
  limit 20;
select ok(pg_temp.plan_has($$ execute every_match('nobodyusedthis') $$,
  'Bitmap Index Scan on posts_search_idx\M', 'Seq Scan|Index Scan using|Index Only Scan using'),
  'every match of a word nobody used is read through posts_search_idx, not the table');
select ok(pg_temp.plan_has($$ execute every_match('about') $$,
  'Bitmap Index Scan on posts_search_idx\M', 'Seq Scan|Index Scan using|Index Only Scan using'),
  'and so is every match of a word every post has');
select ok(pg_temp.limited_scan($$ execute walk('nobodyusedthis', 300) $$, 'posts_created_at_id_idx'),
  'the walk is a range scan of posts_created_at_id_idx directly under its LIMIT');
select is(pg_temp.rows_read($$ execute walk('nobodyusedthis', 300) $$, 'posts_created_at_id_idx'), 300::bigint,
  'and for a word nobody used it reads as many posts as the LIMIT, not the timeline');
-- The probes of app.posts_matching_newest, spelled as it spells them: the
-- word's matches in one hour, or whether one day has any, are one lookup of
-- the word tagged with its day in the GIN index (0035), and the query itself
-- is rechecked on search_vector outside the index.
prepare hour_probe(text, integer) as
  select p.id from posts p
  where app.search_day_words(p.search_vector, p.created_at) @@ app.search_in_hour(websearch_to_tsquery('simple', $1), $2)
    and ts_match_vq(p.search_vector, websearch_to_tsquery('simple', $1))
  order by p.created_at desc, p.id desc;
prepare day_probe(text, integer) as
  select exists (select from posts p
                 where app.search_day_words(p.search_vector, p.created_at) @@ app.search_in_day(websearch_to_tsquery('simple', $1), $2)
                   and ts_match_vq(p.search_vector, websearch_to_tsquery('simple', $1)));
select ok(pg_temp.plan_has($$ execute hour_probe('about', 494000) $$,
  'Index Cond: .*strip\(search_vector\).* @@ .*''h''::text', 'Seq Scan|Index Scan using|Index Only Scan using|Index Cond: \(+search_vector @@'),
  'an hour''s matches are one probe of posts_search_idx by the day''s tagged words, not by the word''s whole list');
select ok(pg_temp.plan_has($$ execute day_probe('about', 20583) $$,
  'Index Cond: .*strip\(search_vector\).* @@ .*''d''::text', 'Seq Scan|Index Scan using|Index Only Scan using|Index Cond: \(+search_vector @@'),
  'whether a day has a match is one probe of posts_search_idx by the day''s tagged words');
select is(probed, matched, 'the hour probe returns exactly the hour''s matches')
from (select app.hour_number(max(created_at)) as hour from posts
      where search_vector @@ websearch_to_tsquery('simple', 'about')) h
cross join lateral (
  select array_agg(p.id order by p.created_at desc, p.id desc) as probed from posts p
  where app.search_day_words(p.search_vector, p.created_at) @@ app.search_in_hour(websearch_to_tsquery('simple', 'about'), h.hour)
    and ts_match_vq(p.search_vector, websearch_to_tsquery('simple', 'about'))) as by_probe
cross join lateral (
  select array_agg(p.id order by p.created_at desc, p.id desc) as matched from posts p
  where app.hour_number(p.created_at) = h.hour and p.search_vector @@ websearch_to_tsquery('simple', 'about')) as by_scan
where matched is not null;
-- The tags: each word of a post behind its day, quotes and backslashes kept;
-- a query tagged the same way, its operators kept.
select is(app.search_day_words($$'it''s' 'a\\b' 'swift':3A$$::tsvector, timestamptz '1970-01-02 01:00:00+00'),
  $$'h25' 'd1' 'd1:it''s' 'd1:a\\b' 'd1:swift'$$::tsvector,
  'app.search_day_words tags each word with the day, with the hour and day as words, quotes and backslashes kept');
select is(app.search_in_hour($$'swift' & !'it''s' & 'a' <-> 'b'$$::tsquery, 25),
  $$'h25' & ( 'd1:swift' & !'d1:it''s' & 'd1:a' <-> 'd1:b' )$$::tsquery,
  'app.search_in_hour tags each word of the query with the hour''s day and requires the hour');
select is(app.search_in_day($$!'ios'$$::tsquery, 1), $$'d1' & !'d1:ios'$$::tsquery,
  'a query of negations alone still requires the day');
select is(app.hour_number(timestamptz '1969-12-31 23:59:59.999999+00'), -1,
  'an instant before the epoch falls in hour -1');
set local client_min_messages = warning;
select is((select count(*) from app.posts_matching_newest(websearch_to_tsquery('simple', '!!!'), 20)), 0::bigint,
  'a query with no words matches nothing');
reset client_min_messages;
select is(
  (select array_agg(id) from app.posts_matching_newest(websearch_to_tsquery('simple', 'about'), 30)),
  (select array_agg(id) from (select id from posts where search_vector @@ websearch_to_tsquery('simple', 'about')
                              order by created_at desc, id desc limit (select count(*) from app.posts_matching_newest(websearch_to_tsquery('simple', 'about'), 30))) s),
  'app.posts_matching_newest returns the newest matches in order, whole hours of them');
-- A post a minute: an hour holds up to 60 matches, more than four times 2.
select ok(
  (select array_agg(id) from app.posts_matching_newest(websearch_to_tsquery('simple', 'about'), 2))
    = (select array_agg(id) from (select id from posts where search_vector @@ websearch_to_tsquery('simple', 'about')
                                  order by created_at desc, id desc limit 8) s)[1:(select count(*) from app.posts_matching_newest(websearch_to_tsquery('simple', 'about'), 2))]
  and (select count(*) from app.posts_matching_newest(websearch_to_tsquery('simple', 'about'), 2)) between 2 and 8,
  'an hour with more than four times the matches still needed is walked, not read whole');
-- One post 30 days older than the rest, for this test alone.
reset role;
insert into posts (author_id, body, created_at)
  select (select a from user_ids)[1], 'a hermit about', now() - interval '30 days';
set local role chirp_service;
set local role chirp_anon;
select is(
  (select array_agg(m.id) from app.posts_matching_newest(websearch_to_tsquery('simple', 'hermit'), 20) m),
  (select array_agg(p.id) from posts p where p.body = 'a hermit about'),
  'a match behind 30 days without one is found');
reset role;
delete from posts where body = 'a hermit about';
set local role chirp_service;
set local role chirp_anon;
reset enable_seqscan;

-- The follow lists' pages of follows, as FollowQueries spells and sets them
-- (no bitmap scans): one range scan of the list's index each, in order.
set local enable_bitmapscan = off;
prepare followers_page(uuid, timestamptz, uuid) as
  select follower_id, created_at from follows where followee_id = $1 and (created_at, follower_id) < ($2, $3)
  order by created_at desc, follower_id desc limit 21;
prepare following_page(uuid, timestamptz, uuid) as
  select followee_id, created_at from follows where follower_id = $1 and (created_at, followee_id) < ($2, $3)
  order by created_at desc, followee_id desc limit 21;
select ok(pg_temp.scans_only($$ execute followers_page('$$ || :'followed' || $$', now(), gen_random_uuid()) $$,
  'follows_followee_created_at_idx'), 'a page of followers: one range scan of follows_followee_created_at_idx');
select ok(pg_temp.scans_only($$ execute following_page('00000000-0000-4000-a000-0000000000f0', now(), gen_random_uuid()) $$,
  'follows_follower_created_at_idx'), 'a page of followed accounts: one range scan of follows_follower_created_at_idx');
reset enable_bitmapscan;

-- The viewer's flags, spelled as Post.columns and Profile.columns spell them,
-- for the fan (2,000 likes, 500 follows): one probe per returned row.
\set liked_by_me 'coalesce((select true from likes l where l.user_id = (select app.user_id()) and l.post_id = p.id), false)'
\set followed_by_me 'coalesce((select true from follows f where f.follower_id = (select app.user_id()) and f.followee_id = u.id), false)'
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-0000000000f0');
prepare timeline_flags(timestamptz, uuid) as
  select p.id, a.username, :liked_by_me from posts p join users a on a.id = p.author_id
  where (p.created_at, p.id) < ($1, $2) order by p.created_at desc, p.id desc limit 21;
prepare search_users_flags(text) as
  select u.id, :followed_by_me from users u
  where u.username like $1 || '%' or u.username % $1 or u.display_name ilike '%' || $1 || '%'
  order by (u.username like $1 || '%') desc, similarity(u.username, $1) desc, u.username limit 21;

select ok(pg_temp.probes_per_row($$ execute timeline_flags(now(), gen_random_uuid()) $$,
  'likes_(pkey|post_created_at_user_idx)', 'l.post_id = p.id'), 'likedByMe on a timeline page: one probe of likes per post');
select ok(pg_temp.probes_per_row($$ execute search_users_flags('user') $$,
  'follows_(pkey|followee_follower_idx)', 'f.followee_id = u.id'), 'followedByMe in user search: one probe of follows per user');
set local plan_cache_mode = force_custom_plan;
select ok(pg_temp.probes_per_row($$ execute timeline_flags(now(), gen_random_uuid()) $$,
  'likes_(pkey|post_created_at_user_idx)', 'l.post_id = p.id'), 'likedByMe on a timeline page, custom plan: one probe per post');
select ok(pg_temp.probes_per_row($$ execute search_users_flags('user') $$,
  'follows_(pkey|followee_follower_idx)', 'f.followee_id = u.id'), 'followedByMe in user search, custom plan: one probe per user');

-- Spelled as exists, with or without limit 1, the flag is a hashed subplan
-- that reads all 2,000 of the fan's likes first: the check catches it.
prepare timeline_exists(timestamptz, uuid) as
  select p.id, exists (select from likes l where l.user_id = (select app.user_id()) and l.post_id = p.id)
  from posts p where (p.created_at, p.id) < ($1, $2) order by p.created_at desc, p.id desc limit 21;
prepare timeline_exists_limit(timestamptz, uuid) as
  select p.id, exists (select from likes l where l.user_id = (select app.user_id()) and l.post_id = p.id limit 1)
  from posts p where (p.created_at, p.id) < ($1, $2) order by p.created_at desc, p.id desc limit 21;
select ok(not pg_temp.probes_per_row($$ execute timeline_exists(now(), gen_random_uuid()) $$,
  'likes_(pkey|post_created_at_user_idx)', 'l.post_id = p.id'), 'an exists flag does not pass the check');
select ok(not pg_temp.probes_per_row($$ execute timeline_exists_limit(now(), gen_random_uuid()) $$,
  'likes_(pkey|post_created_at_user_idx)', 'l.post_id = p.id'), 'an exists flag with limit 1 does not pass the check');
set local plan_cache_mode = force_generic_plan;

-- Explore's pages, as ExploreQueries sends them, in a new database: seeding
-- analyzed explore_ranks while it was empty, and the first snapshot is ranked.
reset role;
delete from explore_snapshots;
analyze explore_ranks;
select pg_temp.act_as('chirp_anon');
select app.explore_snapshot(0, 1000) as snapshot \gset
reset role;
select isnt_empty($$ select from pg_stats where tablename = 'explore_ranks' and attname = 'snapshot_id' $$,
  'ranking the first snapshot gives explore_ranks statistics');
select pg_temp.act_as('chirp_anon');
prepare explore_first(integer, integer, integer) as
  select r.snapshot_id, r.rank, p.id, a.username, :liked_by_me
  from explore_ranks r join posts p on p.id = r.post_id join users a on a.id = p.author_id
  where r.snapshot_id = (select app.explore_snapshot($1, $2))
  order by r.rank limit $3;
prepare explore_later(bigint, integer, integer) as
  select r.snapshot_id, r.rank, p.id, a.username, :liked_by_me
  from explore_ranks r join posts p on p.id = r.post_id join users a on a.id = p.author_id
  where r.snapshot_id = $1 and r.rank > $2
  order by r.rank limit $3;
select ok(pg_temp.reads_in_order($$ execute explore_first(30, 1000, 21) $$, 'explore_ranks_pkey'),
  'explore''s first page reads explore_ranks_pkey in order, no sort');
select ok(pg_temp.reads_in_order(format('execute explore_later(%s, 20, 21)', :snapshot), 'explore_ranks_pkey'),
  'a later explore page reads explore_ranks_pkey in order, no sort');
set local plan_cache_mode = force_custom_plan;
select ok(pg_temp.reads_in_order($$ execute explore_first(30, 1000, 21) $$, 'explore_ranks_pkey'),
  'explore''s first page, custom plan: explore_ranks_pkey in order, no sort');
select ok(pg_temp.reads_in_order(format('execute explore_later(%s, 20, 21)', :snapshot), 'explore_ranks_pkey'),
  'a later explore page, custom plan: explore_ranks_pkey in order, no sort');
set local plan_cache_mode = force_generic_plan;

-- The same checks fail on a query that needs a sort, so they can fail.
select ok(not pg_temp.scans_only(
  $$ select * from posts order by body limit 21 $$, 'posts_created_at_id_idx'),
  'a sorted query does not pass the check');
select ok(not pg_temp.reads_in_order(
  $$ select * from explore_ranks where snapshot_id = 1 order by post_id limit 21 $$, 'explore_ranks_pkey'),
  'nor does a page of ranks in another order');

-- Keyset paging walks the whole timeline without repeats or gaps.
reset role;
create temp table walked (n integer, id uuid);
do $$
declare
  c_at timestamptz := 'infinity';
  c_id uuid := 'ffffffff-ffff-ffff-ffff-ffffffffffff';
  page integer := 0;
  last record;
begin
  loop
    page := page + 1;
    insert into walked
      select page, id from posts where (created_at, id) < (c_at, c_id)
      order by created_at desc, id desc limit 500;
    select p.created_at, p.id into last from posts p join walked w on w.id = p.id
      where w.n = page order by p.created_at, p.id limit 1;
    exit when last is null;
    c_at := last.created_at; c_id := last.id;
  end loop;
end
$$;
select is((select count(distinct id)::integer from walked), 5000, 'paging reaches every post');
select is((select count(*)::integer from walked), 5000, 'paging never repeats a post');

select * from finish();
rollback;
