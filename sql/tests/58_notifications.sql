-- notifications. Fixtures: alice ...0a, bob ...0b, carol ...0c; alice's post
-- ...a1. The triggers of the causes write them; the recipient alone reads them
-- and moves their read mark; nobody else writes any of it.
begin;
\ir support/helpers.sql
select plan(19);

select pg_temp.add_people('alice', 'bob', 'carol');
insert into posts (id, author_id, body) values
  ('00000000-0000-4000-b000-0000000000a1', '00000000-0000-4000-a000-00000000000a', 'alice''s post');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
insert into likes (user_id, post_id) values
  ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-b000-0000000000a1');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-a000-00000000000a');
select is((select count(*)::integer from notifications), 0,
  'the actor does not see the notifications their writes made for someone else');
select is((select count(*)::integer from notification_actors), 0,
  'nor who acted on them');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000c');
insert into likes (user_id, post_id) values
  ('00000000-0000-4000-a000-00000000000c', '00000000-0000-4000-b000-0000000000a1');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
select is(array(select kind || ' ' || actor_count from notifications order by kind),
  array['follow 1', 'like 2'], 'the recipient reads a follow and one group of both likes');
select is((select count(*)::integer from notification_actors), 3, 'and who acted on each');

select throws_ok($$
  insert into notifications (recipient_id, kind, post_id, latest_at)
  values ('00000000-0000-4000-a000-00000000000a', 'like', '00000000-0000-4000-b000-0000000000a1', now())
$$, '42501', null, 'a user cannot write a notification, even their own');
select throws_ok($$
  insert into notification_actors (notification_id, actor_id, recipient_id, acted_at)
  select id, '00000000-0000-4000-a000-00000000000c', recipient_id, now() from notifications limit 1
$$, '42501', null, 'nor add an actor');
select throws_ok($$ update notifications set actor_count = 99 $$, '42501', null, 'nor regroup one');
select throws_ok($$ delete from notifications $$, '42501', null, 'nor delete one');

select is(pg_temp.affected($$
  insert into notification_reads (user_id, read_at, read_id)
  values ('00000000-0000-4000-a000-00000000000a', now(), gen_random_uuid())
$$), 1, 'the recipient sets their own read mark');
select throws_ok($$
  insert into notification_reads (user_id, read_at, read_id)
  values ('00000000-0000-4000-a000-00000000000b', now(), gen_random_uuid())
$$, '42501', 'new row violates row-level security policy for table "notification_reads"',
  'but not someone else''s');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select is(pg_temp.affected($$ update notification_reads set read_at = '-infinity' $$), 0,
  'nor move someone else''s');
select is((select count(*)::integer from notification_reads), 0, 'nor read it');

select pg_temp.act_as('chirp_anon');
select throws_ok($$ select count(*) from notifications $$, '42501', null, 'anonymous callers read no notification');
select throws_ok($$ select count(*) from notification_reads $$, '42501', null, 'nor any read mark');

reset role;
-- Read: a like now starts a new group; unliking empties it and it goes.
update notification_reads set read_at = 'infinity' where user_id = '00000000-0000-4000-a000-00000000000a';
delete from likes where user_id = '00000000-0000-4000-a000-00000000000c';
insert into likes (user_id, post_id) values
  ('00000000-0000-4000-a000-00000000000c', '00000000-0000-4000-b000-0000000000a1');
select is(array(select actor_count from notifications where kind = 'like' order by latest_at),
  array[1, 1], 'after reading, a like starts a new group, and the unlike left the read one with bob');
delete from likes where user_id = '00000000-0000-4000-a000-00000000000c';
select is((select count(*)::integer from notifications where kind = 'like'), 1, 'an emptied group goes');

select throws_ok($$
  insert into notifications (recipient_id, kind, latest_at) values ('00000000-0000-4000-a000-00000000000a', 'like', now())
$$, '23514', null, 'a notification names its cause');

-- A group of many likes: its page entry reads three actors, in order, from the
-- index alone, with the plan a prepared statement gets. (Unread again, so the
-- likes join bob's group.)
delete from notification_reads;
insert into users (id, username)
select ('00000000-0000-4000-c000-' || lpad(to_hex(i), 12, '0'))::uuid, 'liker_' || i from generate_series(1, 300) i;
insert into likes (user_id, post_id)
select ('00000000-0000-4000-c000-' || lpad(to_hex(i), 12, '0'))::uuid, '00000000-0000-4000-b000-0000000000a1'
from generate_series(1, 300) i;
analyze notifications, notification_actors, users;
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
set local plan_cache_mode = force_generic_plan;
prepare newest_actors(uuid) as
  select u.username, na.acted_at
  from (select a.actor_id, a.acted_at from notification_actors a
        where a.notification_id = $1
        order by a.acted_at desc, a.actor_id desc
        limit 3) as na
  join users u on u.id = na.actor_id;
select ok((select bool_or(l ~ 'Index Only Scan using notification_actors_latest_idx')
                  and not bool_or(l ~ 'Sort|Bitmap Heap Scan on notification_actors|Bitmap Index Scan on notification_actors')
           from pg_temp.plan_of(format('execute newest_actors(%L)',
             (select id from notifications where kind = 'like' order by actor_count desc limit 1))) as l),
  'a group''s newest actors are an index-only scan stopped at three, never a sort of them all');
select is((select actor_count from notifications where kind = 'like' order by actor_count desc limit 1), 301,
  'the group holds every like but its author''s');

select * from finish();
rollback;
