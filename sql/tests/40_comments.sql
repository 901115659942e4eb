-- comments and replies. Fixtures: alice ...0a, bob ...0b, carol ...0c;
-- alice's post ...a1, bob's post ...b1; carol's comment ...c1 on alice's post,
-- bob's comment ...c2 on bob's post.
begin;
\ir support/helpers.sql
select plan(30);

select pg_temp.add_people('alice', 'bob', 'carol');
insert into posts (id, author_id, body) values
  ('00000000-0000-4000-b000-0000000000a1', '00000000-0000-4000-a000-00000000000a', 'alice''s post'),
  ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b', 'bob''s post');
insert into comments (id, post_id, author_id, body) values
  ('00000000-0000-4000-c000-0000000000c1', '00000000-0000-4000-b000-0000000000a1', '00000000-0000-4000-a000-00000000000c', 'carol on alice'),
  ('00000000-0000-4000-c000-0000000000c2', '00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b', 'bob on bob');

-- alice comments and replies.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');

select lives_ok($$
  insert into comments (post_id, author_id, body)
  values ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000a', 'alice on bob')
$$, 'a user comments on a post');
select lives_ok($$
  insert into comments (post_id, parent_id, author_id, body)
  values ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-c000-0000000000c2',
          '00000000-0000-4000-a000-00000000000a', 'alice replies to bob')
$$, 'a user replies to a top-level comment');
select throws_ok($$
  insert into comments (post_id, author_id, body)
  values ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b', 'I am bob')
$$, '42501', 'new row violates row-level security policy for table "comments"',
  'a user cannot comment as someone else');
select throws_ok($$
  insert into comments (post_id, author_id, body, reply_count)
  values ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000a', 'x', 100)
$$, '42501', null, 'a user cannot mass-assign reply_count');
select throws_ok($$
  insert into comments (post_id, parent_id, author_id, body)
  select '00000000-0000-4000-b000-0000000000b1', id, '00000000-0000-4000-a000-00000000000a', 'reply to a reply'
  from comments where body = 'alice replies to bob'
$$, '23514', 'a reply must answer a top-level comment',
  'a reply to a reply is refused');
select throws_ok($$
  insert into comments (post_id, parent_id, author_id, body)
  values ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-c000-0000000000c1',
          '00000000-0000-4000-a000-00000000000a', 'cross-thread reply')
$$, '23503', null, 'a reply to a comment of another post is refused');
select throws_ok($$
  insert into comments (post_id, parent_id, author_id, body)
  values ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-c000-0000000000ff',
          '00000000-0000-4000-a000-00000000000a', 'reply to nothing')
$$, '23503', null, 'a reply to a missing comment is refused');
select throws_ok($$
  insert into comments (post_id, author_id, body)
  values ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000a', '')
$$, '23514', null, 'an empty comment is refused');
select throws_ok($$
  insert into comments (post_id, author_id, body)
  values ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000a', repeat('x', 2001))
$$, '23514', null, 'a comment over 2000 characters is refused');

select results_eq($$
  select comment_count from posts where id = '00000000-0000-4000-b000-0000000000b1'
$$, $$ values (3) $$, 'comment_count counts replies too');
select results_eq($$
  select reply_count from comments where id = '00000000-0000-4000-c000-0000000000c2'
$$, $$ values (1) $$, 'the parent''s reply_count counts its reply');

select is(pg_temp.affected($$
  update comments set body = 'edited' where id = '00000000-0000-4000-c000-0000000000c1'
$$), 0, 'a post''s author cannot edit a comment on it');
select is(pg_temp.affected($$
  update comments set body = 'alice on bob, edited' where body = 'alice on bob'
$$), 1, 'a comment''s author edits its body');
select ok((select edited_at is not null from comments where body = 'alice on bob, edited'), 'the edit is stamped');
select throws_ok($$
  update comments set edited_at = null where author_id = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'the edit time is the database''s, not the author''s');
select lives_ok($$
  update comments set body = 'alice on bob' where body = 'alice on bob, edited'
$$, 'and edits it back');
select throws_ok($$
  update comments set reply_count = 0
$$, '42501', null, 'a user cannot update reply_count');
select is(pg_temp.affected($$
  delete from comments where id = '00000000-0000-4000-c000-0000000000c2'
$$), 0, 'a user cannot delete someone else''s comment on someone else''s post');
-- carol's comment sits on alice's post: the post's author may remove it.
select is(pg_temp.affected($$
  delete from comments where id = '00000000-0000-4000-c000-0000000000c1'
$$), 1, 'a post author deletes someone else''s comment on their post');
select is(pg_temp.affected($$
  delete from comments where body = 'alice on bob'
$$), 1, 'a comment author deletes their own comment on someone else''s post');

-- bob, as the post's author, may remove alice's reply on his post.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select is(pg_temp.affected($$
  delete from comments where body = 'alice replies to bob'
$$), 1, 'a post author deletes a reply on their post');
select is((select reply_count from comments where id = '00000000-0000-4000-c000-0000000000c2'), 0,
  'the parent''s reply_count drops back');

-- carol, who wrote nothing on bob's post, cannot delete anything there.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000c');
select is(pg_temp.affected($$
  delete from comments where post_id = '00000000-0000-4000-b000-0000000000b1'
$$), 0, 'a bystander deletes nothing');

select pg_temp.act_as('chirp_anon');
select is((select count(*)::integer from comments), 1, 'anyone can read comments');

reset role;
select results_eq($$
  select id, reply_count from comments
$$, $$ values ('00000000-0000-4000-c000-0000000000c2'::uuid, 0) $$, 'only bob''s own comment is left');

-- Deleting a top-level comment takes its replies along, and the counts follow.
insert into comments (post_id, parent_id, author_id, body)
  select '00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-c000-0000000000c2',
         '00000000-0000-4000-a000-00000000000c', 'reply ' || g
  from generate_series(1, 3) g;
select results_eq($$
  select p.comment_count, c.reply_count from posts p, comments c
  where p.id = '00000000-0000-4000-b000-0000000000b1' and c.id = '00000000-0000-4000-c000-0000000000c2'
$$, $$ values (4, 3) $$, 'three replies counted on the post and on the parent');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select is(pg_temp.affected($$
  delete from comments where id = '00000000-0000-4000-c000-0000000000c2'
$$), 1, 'bob deletes his comment');
reset role;
select is((select count(*)::integer from comments), 0, 'its replies went with it');
select is((select comment_count from posts where id = '00000000-0000-4000-b000-0000000000b1'), 0,
  'comment_count is back to zero');

-- Even the superuser cannot turn a top-level comment with replies into a reply.
insert into comments (id, post_id, author_id, body) values
  ('00000000-0000-4000-c000-0000000000d1', '00000000-0000-4000-b000-0000000000a1', '00000000-0000-4000-a000-00000000000a', 'top 1'),
  ('00000000-0000-4000-c000-0000000000d2', '00000000-0000-4000-b000-0000000000a1', '00000000-0000-4000-a000-00000000000a', 'top 2');
insert into comments (post_id, parent_id, author_id, body) values
  ('00000000-0000-4000-b000-0000000000a1', '00000000-0000-4000-c000-0000000000d2', '00000000-0000-4000-a000-00000000000b', 'reply to top 2');
select throws_ok($$
  update comments set parent_id = '00000000-0000-4000-c000-0000000000d1'
  where id = '00000000-0000-4000-c000-0000000000d2'
$$, '23514', null, 'a comment with replies cannot become a reply');

select * from finish();
rollback;
