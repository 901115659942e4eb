-- home_timeline (0012), pulled_posts (0031) and the followed authors' bits
-- (0036): what the triggers write on post, follow, unfollow and delete, the
-- threshold crossings both ways, retention, and who may read them.
-- The threshold is 3 followers and a backfill 2 posts here. Fixtures: alice
-- ...0a, bob ...0b (the author), carol ...0c and dave ...0d (his followers),
-- erin ...0e.
begin;
\ir support/helpers.sql
select plan(38);

create or replace function app.home_timeline_threshold() returns integer
  language sql stable set search_path = pg_catalog, pg_temp as $$ select 3 $$;
create or replace function app.home_timeline_backfill() returns integer
  language sql stable set search_path = pg_catalog, pg_temp as $$ select 2 $$;

select pg_temp.add_people('alice', 'bob', 'carol', 'dave', 'erin');
-- Four posts of bob's from before anyone followed him, one past retention.
insert into posts (id, author_id, body, created_at) values
  ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b', 'one', now() - interval '40 days'),
  ('00000000-0000-4000-b000-0000000000b2', '00000000-0000-4000-a000-00000000000b', 'two', now() - interval '3 hours'),
  ('00000000-0000-4000-b000-0000000000b3', '00000000-0000-4000-a000-00000000000b', 'three', now() - interval '2 hours'),
  ('00000000-0000-4000-b000-0000000000b4', '00000000-0000-4000-a000-00000000000b', 'four', now() - interval '1 hour');

create function pg_temp.rows_of(who uuid) returns text[]
  language sql as $$
  select coalesce(array_agg(p.body order by h.created_at, h.post_id), '{}')
  from home_timeline h join posts p on p.id = h.post_id where h.user_id = who
$$;

-- The posts the walk would read, by body (in order of body: posts written in
-- this transaction share their time).
create function pg_temp.pulled_rows() returns text[]
  language sql as $$
  select coalesce(array_agg(p.body order by p.body), '{}')
  from pulled_posts q join posts p on p.id = q.post_id
$$;

-- Whether who's bits hold bob's slot (0036).
create function pg_temp.follows_pulled_bob(who uuid) returns boolean
  language sql as $$
  select coalesce((select s.slot < bit_length(b.authors) and get_bit(b.authors, s.slot) = 1
                   from pulled_follow_bits b, pulled_author_slots s
                   where b.user_id = who and s.author_id = '00000000-0000-4000-a000-00000000000b'), false)
$$;

-- A post of bob's, by its body.
create function pg_temp.post(body text) returns uuid
  language sql as $$ select id from posts where posts.body = post.body $$;

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000c');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000c', '00000000-0000-4000-a000-00000000000b');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000d');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000d', '00000000-0000-4000-a000-00000000000b');
reset role;
select is(pg_temp.rows_of('00000000-0000-4000-a000-00000000000c'), '{three,four}',
  'a follow copies the author''s most recent posts, as many as the backfill allows');
select is((select timeline_from from follows where follower_id = '00000000-0000-4000-a000-00000000000c'),
  now() - interval '2 hours', 'and records where the copy begins');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'five');
reset role;
select is(pg_temp.rows_of('00000000-0000-4000-a000-00000000000c'), '{three,four,five}',
  'a post is pushed to its author''s followers in its own transaction');
select is(pg_temp.rows_of('00000000-0000-4000-a000-00000000000d'), '{three,four,five}',
  'to every follower');

-- Who may read and write timelines.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000c');
select is((select array_agg(distinct user_id) from home_timeline), array['00000000-0000-4000-a000-00000000000c'::uuid],
  'a user reads only their own home timeline');
select throws_ok($$
  insert into home_timeline (user_id, created_at, post_id, author_id)
  values ('00000000-0000-4000-a000-00000000000c', now(), '00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b')
$$, '42501', null, 'a user cannot write to a home timeline');
select throws_ok($$ delete from home_timeline $$, '42501', null, 'nor delete from one');
select throws_ok($$ update follows set timeline_from = 'infinity' $$, '42501', null,
  'nor move where a follow''s timeline begins');
select pg_temp.act_as('chirp_anon');
select throws_ok($$ select count(*) from home_timeline $$, '42501', null, 'anonymous requests read no timeline');
select pg_temp.act_as('chirp_signin');
select throws_ok($$ select count(*) from home_timeline_pulled $$, '42501', null, 'nor which authors are pulled');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000c');
select throws_ok($$ select count(*) from pulled_posts $$, '42501', null, 'nor their posts, which only the feed function reads');
select throws_ok($$ select count(*) from pulled_follow_bits $$, '42501', null, 'nor whom anyone follows among them');
select throws_ok($$ select count(*) from pulled_author_slots $$, '42501', null, 'nor their slots');

-- Deleting a post and unfollowing remove their rows.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
delete from posts where id = '00000000-0000-4000-b000-0000000000b4';
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000d');
delete from follows where follower_id = '00000000-0000-4000-a000-00000000000d';
reset role;
select is(pg_temp.rows_of('00000000-0000-4000-a000-00000000000c'), '{three,five}', 'a deleted post leaves every timeline');
select is(pg_temp.rows_of('00000000-0000-4000-a000-00000000000d'), '{}', 'an unfollow empties the author''s rows');

-- Crossing upward: bob reaches three followers and posts.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000d');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000d', '00000000-0000-4000-a000-00000000000b');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000e');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000e', '00000000-0000-4000-a000-00000000000b');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'six');
reset role;
select is((select count(*)::integer from home_timeline where post_id = pg_temp.post('six')), 0,
  'a post by an author at the threshold writes no row per follower');
select ok(exists (select from home_timeline_pulled where author_id = '00000000-0000-4000-a000-00000000000b'),
  'the author is pulled from then on');
select is(array(select distinct timeline_from from follows where followee_id = '00000000-0000-4000-a000-00000000000b'),
  array['infinity'::timestamptz], 'and every follow of theirs is read at read time');
select is(pg_temp.pulled_rows(), '{five,six,three,two}',
  'the crossing records the author''s posts within retention for the walk, this one too');
select ok(pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000c')
          and pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000d')
          and pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000e')
          and not pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000a'),
  'each follower''s bits gain the author''s slot, and nobody else''s');
select is((select array_agg(distinct b.latest_pull) from pulled_follow_bits b),
          array[(select since from home_timeline_pulled where author_id = '00000000-0000-4000-a000-00000000000b')],
  'with the moment of the pull: their timeline rows from then on are no pulled author''s');
select ok((select bool_and(q.author_slot = s.slot) from pulled_posts q join pulled_author_slots s on s.author_id = q.author_id)
          and exists (select from pulled_posts),
  'the walk''s rows carry the author''s slot');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'six and a half');
delete from posts where body = 'two';
reset role;
select is(pg_temp.pulled_rows(), '{five,six,"six and a half",three}',
  'a pulled author''s post adds its row, a deleted one takes its row away');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000b');
reset role;
select ok(pg_temp.rows_of('00000000-0000-4000-a000-00000000000a') = '{}'
          and (select timeline_from from follows where follower_id = '00000000-0000-4000-a000-00000000000a') = 'infinity',
  'following a pulled author copies nothing');
select ok(pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000a'), 'and sets the follower''s bit');

-- Crossing downward: alice and erin leave, bob posts twice.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
delete from follows where follower_id = '00000000-0000-4000-a000-00000000000a';
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000e');
delete from follows where follower_id = '00000000-0000-4000-a000-00000000000e';
reset role;
select ok(not pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000a')
          and not pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000e')
          and pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000c'),
  'an unfollow clears the follower''s bit, and only theirs');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'seven');
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'eight');
reset role;
select ok(not exists (select from home_timeline_pulled where author_id = '00000000-0000-4000-a000-00000000000b')
          and (select count(*) from home_timeline where post_id = pg_temp.post('seven')) = 0
          and (select count(*) from home_timeline where post_id = pg_temp.post('eight')) = 2,
  'below the threshold again, the author is pushed after the post that crossed');
select ok((select bool_and(timeline_from > now() and timeline_from < 'infinity') from follows
           where followee_id = '00000000-0000-4000-a000-00000000000b'),
  'and every follow is read at read time up to the moment of the crossing');
select is(pg_temp.pulled_rows(), '{}', 'and no row of theirs is left to walk');
select ok(not pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000c')
          and not pg_temp.follows_pulled_bob('00000000-0000-4000-a000-00000000000d')
          and exists (select from pulled_author_slots where author_id = '00000000-0000-4000-a000-00000000000b'),
  'and no follower keeps its bit; the slot stays the author''s, never handed on');

-- The bit helpers: a string grows with zeros to take a bit, clearing past its end changes nothing.
select is(app.bits_with(B'', 3, 1)::text, '0001', 'a bit past the end grows the string');
select is(app.bits_with(B'0101', 1, 0)::text, '0001', 'a bit within it is cleared');
select is(app.bits_with(B'01', 5, 0)::text, '01', 'clearing past the end changes nothing');
select is(app.bits_of(array[4, 0, 4])::text, '10001', 'a set of slots is the string with those bits');

-- Retention.
insert into home_timeline (user_id, created_at, post_id, author_id) values
  ('00000000-0000-4000-a000-00000000000c', now() - interval '31 days', '00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b');
select pg_temp.act_as('chirp_signin');
select cmp_ok(app.purge_expired(), '>=', 1, 'the purge removes rows older than retention');
reset role;
select is((select count(*)::integer from home_timeline where created_at < app.expired_before('home_timeline')), 0,
  'none is left');
insert into pulled_posts (created_at, post_id, author_id) values
  (now() - interval '31 days', '00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b');
select pg_temp.act_as('chirp_signin');
select is(app.purge_expired(), 1, 'the purge removes pulled posts older than retention');
reset role;
select is((select count(*)::integer from pulled_posts), 0, 'and only those');

select * from finish();
rollback;
