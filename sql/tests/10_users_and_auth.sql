-- users, credentials and refresh_tokens.
-- Fixtures: alice ...0a, bob ...0b, created as the superuser.
begin;
\ir support/helpers.sql
select plan(35);

select pg_temp.add_people('alice', 'bob');
insert into credentials (user_id, password_hash) values
  ('00000000-0000-4000-a000-00000000000b', 'hash-of-bob');
insert into refresh_tokens (user_id, family_id, token_hash, expires_at) values
  ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-f000-000000000001', '\x0b01', now() + interval '30 days');

-- The auth service: sign-up, login, password change, token rotation.
select pg_temp.act_as('chirp_signin');

-- The service chooses a new user's id (0022), so that a sign-up whose answer is
-- lost as it commits can be read back; an id already taken is refused.
select throws_ok($$
  insert into users (id, username) values ('00000000-0000-4000-a000-00000000000a', 'mallory')
$$, '23505', null, 'the auth service cannot take an existing user''s id');
select lives_ok($$
  insert into users (username, display_name) values ('carol', 'Carol')
$$, 'the auth service creates a user');
select throws_ok($$
  insert into users (username, follower_count) values ('dave', 1000)
$$, '42501', null, 'the auth service cannot set counters at sign-up');
select throws_ok($$
  insert into users (username) values ('CAROL')
$$, '23514', null, 'usernames are lowercase');
select throws_ok($$
  insert into users (username) values ('ab')
$$, '23514', null, 'usernames have at least 3 characters');
select throws_ok($$
  insert into users (username) values ('carol')
$$, '23505', null, 'usernames are unique');
select lives_ok($$
  insert into credentials (user_id, password_hash)
  select id, 'hash-of-carol' from users where username = 'carol'
$$, 'the auth service stores credentials');
select is((select password_hash from credentials c join users u on u.id = c.user_id where u.username = 'bob'),
  'hash-of-bob', 'the auth service reads credentials');
select is(pg_temp.affected($$
  update credentials set password_hash = 'new-hash-of-bob', updated_at = now()
  where user_id = '00000000-0000-4000-a000-00000000000b'
$$), 1, 'the auth service changes a password');
select throws_ok($$
  delete from credentials where user_id = '00000000-0000-4000-a000-00000000000b'
$$, '42501', null, 'the auth service cannot delete credentials');
select throws_ok($$
  update users set display_name = 'Bobby' where id = '00000000-0000-4000-a000-00000000000b'
$$, '42501', null, 'the auth service never updates users');
select throws_ok($$
  delete from users where id = '00000000-0000-4000-a000-00000000000b'
$$, '42501', null, 'the auth service cannot delete users');

select is(pg_temp.affected($$
  update refresh_tokens set used_at = now()
  where token_hash = '\x0b01' and used_at is null and revoked_at is null and expires_at > now()
$$), 1, 'the auth service marks a refresh token used');
select lives_ok($$
  insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
  values ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-f000-000000000001', '\x0b02', now() + interval '30 days')
$$, 'the auth service issues the successor in the same family');
select throws_ok($$
  insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
  values ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-f000-000000000001', '\x0b02', now() + interval '30 days')
$$, '23505', null, 'token hashes are unique');
select is(pg_temp.affected($$
  update refresh_tokens set used_at = now()
  where token_hash = '\x0b01' and used_at is null and revoked_at is null and expires_at > now()
$$), 0, 'a used refresh token cannot be used again');
select is(pg_temp.affected($$
  update refresh_tokens set revoked_at = now()
  where family_id = '00000000-0000-4000-f000-000000000001' and revoked_at is null
$$), 2, 'reuse revokes the whole family');
select throws_ok($$
  update refresh_tokens set user_id = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'a refresh token cannot change hands');
select throws_ok($$
  delete from refresh_tokens
$$, '42501', null, 'the auth service revokes tokens rather than deleting them');
select throws_ok($$
  insert into posts (author_id, body) values ('00000000-0000-4000-a000-00000000000b', 'hi')
$$, '42501', null, 'the auth service cannot post');

-- A signed-in user.
reset role;
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
-- Secrets are out of a user's reach altogether: 05_refusals.sql.

select is(pg_temp.affected($$
  update users set display_name = 'Alice A.', bio = 'hello'
  where id = '00000000-0000-4000-a000-00000000000a'
$$), 1, 'a user updates their own display name and bio');
select is(pg_temp.affected($$
  update users set bio = 'pwned' where id = '00000000-0000-4000-a000-00000000000b'
$$), 0, 'a user cannot update another user''s profile');
select is(pg_temp.affected($$ update users set bio = 'pwned' $$), 1,
  'an unqualified update touches only the user''s own row');
select throws_ok($$
  update users set follower_count = 1000000 where id = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'a user cannot update their follower count');
select throws_ok($$
  update users set username = 'root' where id = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'a user cannot rename themselves');
select throws_ok($$
  update users set id = '00000000-0000-4000-a000-0000000000ff' where id = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'a user cannot change their id');
select throws_ok($$
  update users set display_name = repeat('x', 51) where id = '00000000-0000-4000-a000-00000000000a'
$$, '23514', null, 'display names are at most 50 characters');
select throws_ok($$
  update users set bio = repeat('x', 301) where id = '00000000-0000-4000-a000-00000000000a'
$$, '23514', null, 'bios are at most 300 characters');
select throws_ok($$
  insert into users (username) values ('alice2')
$$, '42501', null, 'a user cannot create users');
select throws_ok($$
  delete from users where id = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'a user cannot delete users, not even themselves');

-- Without an identity, a user role matches no row.
select pg_temp.act_as('chirp_user', null);
select is(pg_temp.affected($$ update users set bio = 'nobody' $$), 0,
  'a request without app.user_id updates no profile');

-- Anonymous callers read profiles and write nothing (05_refusals.sql).
reset role;
select pg_temp.act_as('chirp_anon');
select is((select count(*)::integer from users), 3, 'anyone can read profiles');

reset role;
select results_eq($$
  select username, display_name, bio from users order by username
$$, $$ values ('alice', 'Alice A.', 'pwned'), ('bob', 'Bob', ''), ('carol', 'Carol', '') $$,
  'only alice''s own profile changed');
select is((select password_hash from credentials where user_id = '00000000-0000-4000-a000-00000000000b'),
  'new-hash-of-bob', 'the password change stuck');
select is((select count(*)::integer from refresh_tokens where revoked_at is null), 0,
  'every token of the reused family is revoked');

select * from finish();
rollback;
