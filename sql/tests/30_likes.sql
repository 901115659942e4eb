-- likes. Fixtures: alice ...0a, bob ...0b, carol ...0c; bob's post ...b1.
begin;
\ir support/helpers.sql
select plan(14);

select pg_temp.add_people('alice', 'bob', 'carol');
insert into posts (id, author_id, body) values
  ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b', 'like me');
-- carol's like, made as the superuser.
insert into likes (user_id, post_id) values
  ('00000000-0000-4000-a000-00000000000c', '00000000-0000-4000-b000-0000000000b1');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');

select is(pg_temp.affected_twice($$
  insert into likes (user_id, post_id)
  values ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-b000-0000000000b1')
  on conflict do nothing
$$), '{1,0}', 'a user likes a post, and liking it again with on conflict do nothing is a no-op');
select is((select like_count from posts where id = '00000000-0000-4000-b000-0000000000b1'), 2,
  'the writer sees the new like_count in its own transaction');
select throws_ok($$
  insert into likes (user_id, post_id)
  values ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-b000-0000000000b1')
$$, '42501', 'new row violates row-level security policy for table "likes"',
  'a user cannot like as someone else');
select throws_ok($$
  insert into likes (user_id, post_id)
  values ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-b000-0000000000ff')
$$, '23503', null, 'liking a missing post is a foreign key violation');
select throws_ok($$
  insert into likes (user_id, post_id, created_at)
  values ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-b000-0000000000b1', now())
$$, '42501', null, 'a user cannot set created_at on a like');
select throws_ok($$
  update likes set user_id = '00000000-0000-4000-a000-00000000000a'
  where user_id = '00000000-0000-4000-a000-00000000000c'
$$, '42501', null, 'a user cannot take over someone else''s like');
select is(pg_temp.affected($$
  delete from likes where user_id = '00000000-0000-4000-a000-00000000000c'
$$), 0, 'a user cannot remove someone else''s like');
select is(pg_temp.affected($$
  delete from likes where post_id = '00000000-0000-4000-b000-0000000000b1'
$$), 1, 'deleting all likes of a post removes only the user''s own');
select is((select count(*)::integer from likes), 1, 'anyone can read likes');

select pg_temp.act_as('chirp_anon');
select is((select count(*)::integer from likes), 1, 'anonymous callers can read likes');

reset role;
select results_eq($$ select user_id from likes $$,
  $$ values ('00000000-0000-4000-a000-00000000000c'::uuid) $$, 'carol''s like survived');
select is((select like_count from posts where id = '00000000-0000-4000-b000-0000000000b1'), 1,
  'like_count equals the number of likes');

-- Many likes and unlikes leave the counter equal to the rows.
insert into users (username) select 'fan' || g from generate_series(1, 40) g;
insert into likes (user_id, post_id)
  select id, '00000000-0000-4000-b000-0000000000b1' from users where username like 'fan%';
delete from likes where user_id in (select id from users where username in ('fan1', 'fan2', 'fan3'));
select is((select like_count from posts where id = '00000000-0000-4000-b000-0000000000b1'),
  (select count(*)::integer from likes where post_id = '00000000-0000-4000-b000-0000000000b1'),
  'like_count stays exact over a batch of likes and unlikes');
select is((select like_count from posts where id = '00000000-0000-4000-b000-0000000000b1'), 38,
  'and is 38');

select * from finish();
rollback;
