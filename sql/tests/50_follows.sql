-- follows. Fixtures: alice ...0a, bob ...0b, carol ...0c; carol follows bob.
begin;
\ir support/helpers.sql
select plan(12);

select pg_temp.add_people('alice', 'bob', 'carol');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000c', '00000000-0000-4000-a000-00000000000b');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');

select is(pg_temp.affected_twice($$
  insert into follows (follower_id, followee_id)
  values ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000b')
  on conflict do nothing
$$), '{1,0}', 'a user follows someone, and following again with on conflict do nothing is a no-op');
select throws_ok($$
  insert into follows (follower_id, followee_id)
  values ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000a')
$$, '23514', null, 'following yourself is refused');
select throws_ok($$
  insert into follows (follower_id, followee_id)
  values ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-a000-00000000000c')
$$, '42501', 'new row violates row-level security policy for table "follows"',
  'a user cannot make someone else follow');
select throws_ok($$
  update follows set followee_id = '00000000-0000-4000-a000-00000000000a'
  where follower_id = '00000000-0000-4000-a000-00000000000c'
$$, '42501', null, 'a user cannot redirect someone else''s follow');
select is(pg_temp.affected($$
  delete from follows where follower_id = '00000000-0000-4000-a000-00000000000c'
$$), 0, 'a user cannot remove someone else''s follow');
select is(pg_temp.affected($$
  delete from follows where followee_id = '00000000-0000-4000-a000-00000000000b'
$$), 1, 'unfollowing a user removes only the user''s own follow');

select pg_temp.act_as('chirp_anon');
select is((select count(*)::integer from follows), 1, 'anyone can read follows');

reset role;
select results_eq($$ select follower_id, followee_id from follows $$,
  $$ values ('00000000-0000-4000-a000-00000000000c'::uuid, '00000000-0000-4000-a000-00000000000b'::uuid) $$,
  'carol''s follow survived');

-- Counters on both sides, in both lock orders (a < b and b < a).
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000b'),
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000c');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-a000-00000000000a');
reset role;
select results_eq($$
  select username, follower_count, following_count from users order by username
$$, $$ values ('alice', 1, 2), ('bob', 2, 1), ('carol', 1, 1) $$,
  'follower and following counts match the follows');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
select is(pg_temp.affected($$
  delete from follows where follower_id = '00000000-0000-4000-a000-00000000000a'
$$), 2, 'alice unfollows everyone');
reset role;
select results_eq($$
  select username, follower_count, following_count from users order by username
$$, $$ values ('alice', 1, 0), ('bob', 1, 1), ('carol', 0, 1) $$,
  'the counts follow the unfollows');
select is_empty($$
  select u.username from users u
  where u.follower_count <> (select count(*) from follows where followee_id = u.id)
     or u.following_count <> (select count(*) from follows where follower_id = u.id)
$$, 'every user''s counts equal the follow rows');

select * from finish();
rollback;
