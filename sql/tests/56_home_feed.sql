-- app.home_feed (0029, 0030): whose feed it reads, what it leaves out, how a
-- page joins the parts above and below the retention horizon, who may call it,
-- and the settings its statements are planned under. Fixtures: alice ...0a
-- follows bob ...0b (pushed) and erin ...0e (muted); carol ...0c follows dave
-- ...0d, whom alice does not follow.
begin;
\ir support/helpers.sql
select plan(11);

select pg_temp.add_people('alice', 'bob', 'carol', 'dave', 'erin');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000b'),
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000e'),
  ('00000000-0000-4000-a000-00000000000c', '00000000-0000-4000-a000-00000000000d');
insert into posts (author_id, body, created_at) values
  ('00000000-0000-4000-a000-00000000000a', 'alice', now() - interval '4 minutes'),
  ('00000000-0000-4000-a000-00000000000b', 'bob', now() - interval '3 minutes'),
  ('00000000-0000-4000-a000-00000000000d', 'dave', now() - interval '2 minutes'),
  ('00000000-0000-4000-a000-00000000000e', 'erin', now() - interval '1 minute'),
  ('00000000-0000-4000-a000-00000000000a', 'alice, long ago', now() - interval '50 days'),
  ('00000000-0000-4000-a000-00000000000b', 'bob, long ago', now() - interval '60 days');

-- The bodies of a page read as `who`, newest first: below `upper_at` and above
-- `floor_at` when given.
create function pg_temp.feed_of(who uuid, page integer default 20, upper_at timestamptz default 'infinity',
                                floor_at timestamptz default '-infinity') returns text[]
  language plpgsql as $$
declare bodies text[];
begin
  perform pg_temp.act_as('chirp_user', who);
  select array_agg(p.body order by t.created_at desc, t.id desc) into bodies
  from app.home_feed(upper_at, 'ffffffff-ffff-ffff-ffff-ffffffffffff', floor_at, '00000000-0000-0000-0000-000000000000', page) t
  join posts p on p.id = t.id;
  reset role;
  return bodies;
end
$$;

select is(pg_temp.feed_of('00000000-0000-4000-a000-00000000000a'), '{erin,bob,alice,"alice, long ago","bob, long ago"}',
  'the feed holds the viewer''s own posts and those of the people they follow, past retention too');
select is(pg_temp.feed_of('00000000-0000-4000-a000-00000000000c'), '{dave}',
  'it is the feed of the transaction''s user, whose id is not an argument');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
insert into mutes (muter_id, muted_id) values ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000e');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000c');
insert into mutes (muter_id, muted_id) values ('00000000-0000-4000-a000-00000000000c', '00000000-0000-4000-a000-00000000000b');
reset role;
select is(pg_temp.feed_of('00000000-0000-4000-a000-00000000000a'), '{bob,alice,"alice, long ago","bob, long ago"}',
  'a muted author''s posts are left out');
select is(pg_temp.feed_of('00000000-0000-4000-a000-00000000000a', 2), '{bob,alice}',
  'a page holds at most the page size');
select is(pg_temp.feed_of('00000000-0000-4000-a000-00000000000a', 3), '{bob,alice,"alice, long ago"}',
  'a page across the retention horizon continues below it with what is left of the page');
select is(pg_temp.feed_of('00000000-0000-4000-a000-00000000000a', 20, now() - interval '55 days'), '{"bob, long ago"}',
  'a page that starts below the horizon reads only below it');
select is(pg_temp.feed_of('00000000-0000-4000-a000-00000000000a', 20, 'infinity', now() - interval '200 seconds'), '{bob}',
  'a refresh newer than a post above the horizon reads nothing below it');

-- The function reads mutes as their owner, and the owner reads only the
-- mutes of the transaction's user.
set local role chirp_owner;
select set_config('app.user_id', '00000000-0000-4000-a000-00000000000a', true);
select is((select array_agg(muted_id) from mutes), array['00000000-0000-4000-a000-00000000000e'::uuid],
  'as the owner, only the viewer''s own mutes are visible');
reset role;

select pg_temp.act_as('chirp_user');
select throws_ok($$ select app.home_feed('infinity', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '-infinity', '00000000-0000-0000-0000-000000000000', 20) $$,
  '42501', null, 'without a user there is no home feed');
select pg_temp.act_as('chirp_anon');
select throws_ok($$ select app.home_feed('infinity', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '-infinity', '00000000-0000-0000-0000-000000000000', 20) $$,
  '42501', null, 'an anonymous request cannot call it');
reset role;

select is((select proconfig from pg_proc where oid = 'app.home_feed(timestamptz, uuid, timestamptz, uuid, integer)'::regprocedure),
  array['search_path=pg_catalog, public, pg_temp', 'plan_cache_mode=force_generic_plan', 'enable_seqscan=off', 'enable_bitmapscan=off'],
  'its statements are planned once, generic, and read in index order');

select * from finish();
rollback;
