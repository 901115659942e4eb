-- idempotency_keys and app.purge_expired(). Fixtures: alice ...0a, bob ...0b;
-- bob's key 'k-bob', an anonymous key 'anon:x1', and expired rows.
begin;
\ir support/helpers.sql
select plan(26);

select pg_temp.add_people('alice', 'bob');
insert into idempotency_keys (owner_key, idempotency_key, request_hash, created_at) values
  ('00000000-0000-4000-a000-00000000000b', 'k-bob', '\xb0', now()),
  ('anon:x1', 'k-anon', '\xa0', now()),
  ('00000000-0000-4000-a000-00000000000b', 'k-old', '\xb1', now() - interval '25 hours'),
  ('anon:x2', 'k-old', '\xa1', now() - interval '25 hours');
insert into refresh_tokens (user_id, family_id, token_hash, expires_at) values
  ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-f000-000000000001', '\x01', now() - interval '1 day'),
  ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-f000-000000000001', '\x02', now() + interval '1 day');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');

select lives_ok($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('00000000-0000-4000-a000-00000000000a', 'k1', '\x01')
$$, 'a user records their own idempotency key');
select is(pg_temp.affected($$
  update idempotency_keys set status_code = 201, response_body = '\x7b7d'
  where owner_key = '00000000-0000-4000-a000-00000000000a' and idempotency_key = 'k1'
$$), 1, 'and completes it with the response');
select throws_ok($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('00000000-0000-4000-a000-00000000000a', 'k1', '\x01')
$$, '23505', null, 'a key is taken once per owner');
select throws_ok($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('00000000-0000-4000-a000-00000000000b', 'k2', '\x01')
$$, '42501', null, 'a user cannot record a key for someone else');
select throws_ok($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('anon:x1', 'k3', '\x01')
$$, '42501', null, 'a user cannot record an anonymous key');
select results_eq($$ select idempotency_key from idempotency_keys $$,
  $$ values ('k1') $$, 'a user sees only their own keys');
select is(pg_temp.affected($$
  update idempotency_keys set response_body = '\x00' where idempotency_key = 'k-bob'
$$), 0, 'a user cannot overwrite someone else''s response');
select throws_ok($$
  update idempotency_keys set owner_key = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'a key cannot change owner');
-- A stale key is reclaimed in place by the usual upsert; a live one is not.
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select is(pg_temp.affected($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('00000000-0000-4000-a000-00000000000b', 'k-old', '\xb2')
  on conflict (owner_key, idempotency_key) do update
    set request_hash = excluded.request_hash, status_code = null, response_body = null, created_at = now()
    where idempotency_keys.created_at < now() - interval '24 hours'
$$), 1, 'a user reclaims their own expired key with an upsert');
select is(pg_temp.affected($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('00000000-0000-4000-a000-00000000000b', 'k-bob', '\xb3')
  on conflict (owner_key, idempotency_key) do update
    set request_hash = excluded.request_hash, status_code = null, response_body = null, created_at = now()
    where idempotency_keys.created_at < now() - interval '24 hours'
$$), 0, 'the same upsert leaves a live key alone');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
select throws_ok($$ delete from idempotency_keys $$, '42501', null,
  'a user cannot delete keys');
select throws_ok($$ select app.purge_expired() $$, '42501', null,
  'a user cannot run the purge');

select pg_temp.act_as('chirp_anon');
select lives_ok($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('anon:x3', 'signup-1', '\x01')
$$, 'an anonymous caller records an anonymous key');
select throws_ok($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('00000000-0000-4000-a000-00000000000a', 'k9', '\x01')
$$, '42501', null, 'an anonymous caller cannot record a user''s key');
select is((select count(*)::integer from idempotency_keys where not starts_with(owner_key, 'anon:')), 0,
  'an anonymous caller sees no user''s key');
select is(pg_temp.affected($$
  update idempotency_keys set response_body = '\x00' where owner_key = '00000000-0000-4000-a000-00000000000b'
$$), 0, 'an anonymous caller cannot overwrite a user''s response');
select throws_ok($$ delete from idempotency_keys $$, '42501', null,
  'an anonymous caller cannot delete keys');

-- The auth service records the sign-up's key in the sign-up's transaction.
select pg_temp.act_as('chirp_auth');
select is(pg_temp.affected($$
  update idempotency_keys set status_code = 201 where owner_key = 'anon:x3' and idempotency_key = 'signup-1'
$$), 1, 'the auth service completes an anonymous key');
select is((select count(*)::integer from idempotency_keys where not starts_with(owner_key, 'anon:')), 0,
  'the auth service sees no user''s key');

select is(app.purge_expired(), 2, 'the purge removes the expired token and the stale key');
select is(app.purge_expired(), 0, 'a second purge finds nothing');

reset role;
select results_eq($$
  select owner_key, idempotency_key from idempotency_keys order by 1, 2
$$, $$ values ('00000000-0000-4000-a000-00000000000a', 'k1'),
              ('00000000-0000-4000-a000-00000000000b', 'k-bob'),
              ('00000000-0000-4000-a000-00000000000b', 'k-old'),
              ('anon:x1', 'k-anon'), ('anon:x3', 'signup-1') $$,
  'keys younger than 24 hours stay');
select results_eq($$ select token_hash from refresh_tokens $$, $$ values ('\x02'::bytea) $$,
  'unexpired refresh tokens stay');
select results_eq($$
  select status_code, response_body from idempotency_keys where idempotency_key = 'k-bob'
$$, $$ values (null::integer, null::bytea) $$, 'bob''s key is untouched');

-- The policies bound the purge itself, whatever the function's query says.
set local role chirp_owner;
select is(pg_temp.affected($$ delete from idempotency_keys $$), 0,
  'chirp_owner cannot delete a key younger than 24 hours');
select is(pg_temp.affected($$ delete from refresh_tokens $$), 0,
  'chirp_owner cannot delete an unexpired refresh token');

select * from finish();
rollback;
