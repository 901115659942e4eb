-- Counters stay equal to the rows they count through writes by app roles,
-- post deletion and user deletion (both cascade through triggers whose
-- targets may already be gone).
begin;
\ir support/helpers.sql
select plan(16);

-- Every counter that differs from a recount, as 'table id column stored/actual'.
create function pg_temp.counter_drift() returns setof text
  language sql as $$
  select 'users ' || u.id || ' ' || x.col || ' ' || x.stored || '/' || x.actual
  from users u
  cross join lateral (values
    ('follower_count', u.follower_count, (select count(*) from follows where followee_id = u.id)),
    ('following_count', u.following_count, (select count(*) from follows where follower_id = u.id)),
    ('post_count', u.post_count, (select count(*) from posts where author_id = u.id))
  ) x(col, stored, actual)
  where x.stored <> x.actual
  union all
  select 'posts ' || p.id || ' ' || x.col || ' ' || x.stored || '/' || x.actual
  from posts p
  cross join lateral (values
    ('like_count', p.like_count, (select count(*) from likes where post_id = p.id)),
    ('comment_count', p.comment_count, (select count(*) from comments where post_id = p.id))
  ) x(col, stored, actual)
  where x.stored <> x.actual
  union all
  select 'comments ' || c.id || ' reply_count ' || c.reply_count || '/' ||
         (select count(*) from comments r where r.parent_id = c.id)
  from comments c
  where c.reply_count <> (select count(*) from comments r where r.parent_id = c.id)
$$;

-- Five users who all follow each other, each with two posts.
insert into users (id, username)
  select ('00000000-0000-4000-a000-00000000000' || g)::uuid, 'user' || g from generate_series(1, 5) g;
insert into follows (follower_id, followee_id)
  select a.id, b.id from users a, users b where a.id <> b.id;
insert into posts (author_id, body)
  select id, 'post ' || g from users, generate_series(1, 2) g;

-- Everyone likes every post and comments on it once, and replies to every
-- top-level comment once, each acting as themselves.
do $$
declare
  u uuid;
begin
  for u in select id from users order by id loop
    perform pg_temp.act_as('chirp_user', u);
    insert into likes (user_id, post_id) select u, id from posts;
    insert into comments (post_id, author_id, body) select id, u, 'comment by ' || u from posts;
    execute 'reset role';
  end loop;
  for u in select id from users order by id loop
    perform pg_temp.act_as('chirp_user', u);
    insert into comments (post_id, parent_id, author_id, body)
      select post_id, id, u, 'reply' from comments where parent_id is null;
    execute 'reset role';
  end loop;
end
$$;

select results_eq($$
  select count(*)::integer, min(like_count), max(like_count), min(comment_count), max(comment_count) from posts
$$, $$ values (10, 5, 5, 30, 30) $$, 'each post has 5 likes and 5 comments + 25 replies');
select results_eq($$
  select min(reply_count), max(reply_count) from comments where parent_id is null
$$, $$ values (5, 5) $$, 'each top-level comment has 5 replies');
select results_eq($$
  select min(follower_count), max(follower_count), min(following_count), max(following_count), min(post_count), max(post_count) from users
$$, $$ values (4, 4, 4, 4, 2, 2) $$, 'each user has 4 followers, follows 4, wrote 2 posts');
select is_empty($$ select * from pg_temp.counter_drift() $$, 'no counter drifts after the writes');

-- user1 removes one of their likes, one reply and one follow.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-000000000001');
delete from likes where user_id = '00000000-0000-4000-a000-000000000001'
  and post_id = (select id from posts order by id limit 1);
delete from comments where id = (select id from comments where author_id = '00000000-0000-4000-a000-000000000001'
                                   and parent_id is not null order by id limit 1);
delete from follows where follower_id = '00000000-0000-4000-a000-000000000001'
  and followee_id = '00000000-0000-4000-a000-000000000002';
reset role;
select is_empty($$ select * from pg_temp.counter_drift() $$, 'no counter drifts after removals');

-- user2 deletes one of their posts: its likes and comments (and their
-- replies) cascade; their triggers find the post already gone.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-000000000002');
select lives_ok($$
  delete from posts where id = (select id from posts
                                where author_id = '00000000-0000-4000-a000-000000000002' order by id limit 1)
$$, 'an author deletes a post with likes, comments and replies');
reset role;
select is((select post_count from users where id = '00000000-0000-4000-a000-000000000002'), 1,
  'the author''s post_count drops');
select is_empty($$ select * from pg_temp.counter_drift() $$, 'no counter drifts after a post cascade');
select is_empty($$
  select 'like' from likes l where not exists (select from posts p where p.id = l.post_id)
  union all
  select 'comment' from comments c where not exists (select from posts p where p.id = c.post_id)
$$, 'nothing of the post is left behind');

-- Deleting user3 (an operator's job) cascades through everything they
-- touched: their posts, likes, comments, replies and follows on both sides.
select lives_ok($$
  delete from users where id = '00000000-0000-4000-a000-000000000003'
$$, 'deleting a user cascades');
select is_empty($$ select * from pg_temp.counter_drift() $$, 'no counter drifts after a user cascade');
select results_eq($$
  select min(follower_count), max(follower_count) from users
  where id not in ('00000000-0000-4000-a000-000000000002')
$$, $$ values (3, 3) $$, 'the remaining users lost exactly one follower');

-- The triggers write as chirp_owner, whose update policies admit every row of
-- users, posts and comments: its privileges let it change counters there and
-- nothing else.
set local role chirp_owner;
select throws_ok($$ update users set username = 'owned' $$, '42501', null,
  'chirp_owner cannot rename a user');
select throws_ok($$ update posts set body = 'owned', like_count = like_count $$, '42501', null,
  'chirp_owner cannot edit a post, not even beside a counter');
select throws_ok($$ update comments set author_id = parent_id $$, '42501', null,
  'chirp_owner cannot move a comment');
select is(pg_temp.affected($$
  update users set follower_count = follower_count, following_count = following_count, post_count = post_count
$$), 4, 'chirp_owner can write the counters the triggers keep');
reset role;

select * from finish();
rollback;
