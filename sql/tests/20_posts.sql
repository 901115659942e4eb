-- posts: authors create, edit (the body) and delete their own; counters are
-- the triggers' business. Fixtures: alice ...0a, bob ...0b; bob's post ...b1.
begin;
\ir support/helpers.sql
select plan(21);

select pg_temp.add_people('alice', 'bob');
insert into posts (id, author_id, body) values
  ('00000000-0000-4000-b000-0000000000b1', '00000000-0000-4000-a000-00000000000b', 'bob was here');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');

select lives_ok($$
  insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000a', 'first!')
$$, 'a user creates their own post');
select is((select count(*)::integer from posts where author_id = '00000000-0000-4000-a000-00000000000a'), 1,
  'and reads it back');
select throws_ok($$
  insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'I am bob')
$$, '42501', 'new row violates row-level security policy for table "posts"',
  'a user cannot post as someone else');
select throws_ok($$
  insert into posts (author_id, body, like_count) values ('00000000-0000-4000-a000-00000000000a', 'popular', 9999)
$$, '42501', null, 'a user cannot mass-assign like_count');
select throws_ok($$
  insert into posts (author_id, body, comment_count) values ('00000000-0000-4000-a000-00000000000a', 'busy', 9999)
$$, '42501', null, 'a user cannot mass-assign comment_count');
select throws_ok($$
  insert into posts (id, author_id, body)
  select id, '00000000-0000-4000-a000-00000000000a', 'x' from posts where author_id <> '00000000-0000-4000-a000-00000000000a' limit 1
$$, '23505', null, 'a user cannot take the id of someone else''s post (the service chooses new ids, 0022)');
select throws_ok($$
  insert into posts (author_id, body, created_at) values ('00000000-0000-4000-a000-00000000000a', 'from the future', now() + interval '1 year')
$$, '42501', null, 'a user cannot backdate or postdate a post');
select throws_ok($$
  insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000a', '')
$$, '23514', null, 'an empty post is refused');
select throws_ok($$
  insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000a', repeat('x', 501))
$$, '23514', null, 'a post over 500 characters is refused');
select lives_ok($$
  insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000a', repeat('é', 500))
$$, '500 characters (not bytes) are fine');

select throws_ok($$
  update posts set like_count = 1000000 where id = '00000000-0000-4000-b000-0000000000b1'
$$, '42501', null, 'a user cannot update like_count');
select is(pg_temp.affected($$
  update posts set body = 'edited' where id = '00000000-0000-4000-b000-0000000000b1'
$$), 0, 'a user cannot edit someone else''s post');
select is(pg_temp.affected($$
  update posts set body = 'rewritten' where author_id = '00000000-0000-4000-a000-00000000000a' and body = repeat('é', 500)
$$), 1, 'an author edits the body of their own post');
select ok((select edited_at is not null from posts where body = 'rewritten'), 'the edit is stamped');
select throws_ok($$
  update posts set edited_at = null where author_id = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'the edit time is the database''s, not the author''s');
select is(pg_temp.affected($$
  delete from posts where id = '00000000-0000-4000-b000-0000000000b1'
$$), 0, 'a user cannot delete someone else''s post');
select is(pg_temp.affected($$
  delete from posts where author_id = '00000000-0000-4000-a000-00000000000a' and body = 'first!'
$$), 1, 'an author deletes their own post');

select pg_temp.act_as('chirp_anon');
select is((select count(*)::integer from posts), 2, 'anyone can read posts');

reset role;
select results_eq($$
  select body, like_count, comment_count from posts where id = '00000000-0000-4000-b000-0000000000b1'
$$, $$ values ('bob was here', 0, 0) $$, 'bob''s post is untouched');
select is((select count(*)::integer from posts where author_id = '00000000-0000-4000-a000-00000000000a'), 1,
  'alice has exactly the post she kept');
select results_eq($$
  select username, post_count from users order by username
$$, $$ values ('alice', 1), ('bob', 1) $$, 'post counts follow inserts and deletes');

select * from finish();
rollback;
