-- write_marks (0016): each writing statement of a signed-in user records its
-- transaction in the user's own row, and a replica's reads for that user start
-- by requiring it visible. Fixtures: alice ...0a, bob ...0b.
begin;
\ir support/helpers.sql
select plan(9);

select pg_temp.add_people('alice', 'bob');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000a', 'hello');
select is((select xid from write_marks), pg_current_xact_id(),
  'a post records its transaction in the writer''s mark');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000b');
update users set bio = 'hi' where id = '00000000-0000-4000-a000-00000000000a';
select is((select count(*)::int from write_marks), 1, 'a user has one mark, moved in place');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select is_empty('select * from write_marks', 'a user does not see another''s mark, even one their row''s counters caused');
select throws_ok(
  $$insert into write_marks (user_id, xid) values ('00000000-0000-4000-a000-00000000000b', '3')$$,
  '42501', null, 'a user cannot write a mark directly');
select pg_temp.act_as('chirp_anon');
select throws_ok('select * from write_marks', '42501', null, 'an anonymous request cannot read marks');

reset role;
select set_config('app.user_id', '', true);
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'seeded');
select is((select count(*)::int from write_marks), 1, 'a write without a user marks nothing');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select lives_ok($$select app.require_visible('3'), app.require_visible(null)$$,
  'a committed transaction, or no mark at all, passes');
select throws_ok(
  $$select app.require_visible((pg_snapshot_xmax(pg_current_snapshot())::text::bigint + 1000)::text::xid8)$$,
  'CH001', null, 'a transaction the snapshot does not hold yet fails with CH001');
select throws_ok('select app.require_visible(pg_current_xact_id())', 'CH001', null,
  'so does one still in progress');

select * from finish();
rollback;
