-- write_marks (0016): each writing statement of a signed-in user records its
-- transaction in the user's own row, and a replica's reads for that user start
-- by requiring it visible. Fixtures: alice ...0a, bob ...0b.
begin;
\ir support/helpers.sql
select plan(12);

select pg_temp.add_people('alice', 'bob');

-- Without replicas the service does not ask for marks (0018): a write records none.
delete from write_marks where user_id = '00000000-0000-4000-a000-00000000000a';
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000a', 'unmarked');
select is_empty('select * from write_marks', 'a write records no mark unless app.read_your_writes asks for one');

select set_config('app.read_your_writes', 'on', true);
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000a', 'hello');
select is((select xid from write_marks), pg_current_xact_id(),
  'a post records its transaction in the writer''s mark');
insert into follows (follower_id, followee_id) values
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000b');
update users set bio = 'hi' where id = '00000000-0000-4000-a000-00000000000a';
select is((select count(*)::int from write_marks), 1, 'a user has one mark, moved in place');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select is(array(select user_id::text from write_marks), array['00000000-0000-4000-a000-00000000000b'],
  'a user sees only their own mark, not one their row''s counters helped write');
select throws_ok(
  $$insert into write_marks (user_id, xid) values ('00000000-0000-4000-a000-00000000000b', '3')$$,
  '42501', null, 'a user cannot write a mark directly');
select pg_temp.act_as('chirp_anon');
select throws_ok('select * from write_marks', '42501', null, 'an anonymous request cannot read marks');

reset role;
select set_config('app.user_id', '', true);
insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'seeded');
select is((select count(*)::int from write_marks), 2, 'a write without a user marks nothing (the two are the sign-ups'')');

-- A sign-up marks the new account (0017), and only it.
select pg_temp.act_as('chirp_signin');
insert into users (username) values ('carol');
reset role;
select is((select m.xid from write_marks m join users u on u.id = m.user_id where u.username = 'carol'), pg_current_xact_id(),
  'a sign-up records its transaction as the new account''s mark');
select is((select count(*)::int from write_marks), 3, 'and no other');

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
