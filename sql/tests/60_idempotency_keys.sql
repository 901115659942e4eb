-- idempotency_keys: who records, completes and reads which keys. Fixtures:
-- alice ...0a, bob ...0b; bob's keys 'k-bob' and 'k-old' (expired), and an
-- anonymous key 'anon:x1'. Purging them is 65_expiry_and_purges.sql.
begin;
\ir support/helpers.sql
select plan(20);

-- The service's claim of a key (API/Idempotency.swift): a new key is
-- recorded, an expired one reclaimed in place, a live one left alone. Returns
-- the number of keys claimed.
create function pg_temp.claim(owner text, key text, hash bytea) returns integer
  language sql as $$
  with claimed as (
    insert into idempotency_keys as k (owner_key, idempotency_key, request_hash)
    values (owner, key, hash)
    on conflict (owner_key, idempotency_key) do update
      set request_hash = excluded.request_hash, status_code = null, response_body = null, created_at = now()
      where k.created_at < now() - interval '24 hours'
    returning 1)
  select count(*)::integer from claimed
$$;

select pg_temp.add_people('alice', 'bob');
insert into idempotency_keys (owner_key, idempotency_key, request_hash, created_at) values
  ('00000000-0000-4000-a000-00000000000b', 'k-bob', '\xb0', now()),
  ('anon:x1', 'k-anon', '\xa0', now()),
  ('00000000-0000-4000-a000-00000000000b', 'k-old', '\xb1', now() - interval '25 hours');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');

select is(pg_temp.claim('00000000-0000-4000-a000-00000000000a', 'k1', '\x01'), 1,
  'a user records their own idempotency key');
select is(pg_temp.affected($$
  update idempotency_keys set status_code = 201, response_body = '\x7b7d'
  where owner_key = '00000000-0000-4000-a000-00000000000a' and idempotency_key = 'k1'
$$), 1, 'and completes it with the response');
select throws_ok($$
  insert into idempotency_keys (owner_key, idempotency_key, request_hash)
  values ('00000000-0000-4000-a000-00000000000a', 'k1', '\x01')
$$, '23505', null, 'a key is taken once per owner');
select throws_ok($$ select pg_temp.claim('00000000-0000-4000-a000-00000000000b', 'k2', '\x01') $$,
  '42501', null, 'a user cannot record a key for someone else');
select throws_ok($$ select pg_temp.claim('anon:x1', 'k3', '\x01') $$,
  '42501', null, 'a user cannot record an anonymous key');
select results_eq($$ select idempotency_key from idempotency_keys $$,
  $$ values ('k1') $$, 'a user sees only their own keys');
select is(pg_temp.affected($$
  update idempotency_keys set response_body = '\x00' where idempotency_key = 'k-bob'
$$), 0, 'a user cannot overwrite someone else''s response');
select throws_ok($$
  update idempotency_keys set owner_key = '00000000-0000-4000-a000-00000000000a'
$$, '42501', null, 'a key cannot change owner');
select throws_ok($$ delete from idempotency_keys $$, '42501', null,
  'a user cannot delete keys');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select is(pg_temp.claim('00000000-0000-4000-a000-00000000000b', 'k-old', '\xb2'), 1,
  'a user reclaims their own expired key');
select is(pg_temp.claim('00000000-0000-4000-a000-00000000000b', 'k-bob', '\xb3'), 0,
  'the same claim leaves a live key alone');

-- Anonymous callers create nothing, so they hold no key at all (05_refusals.sql).

-- The auth service claims a sign-up's anonymous key in the sign-up's transaction.
select pg_temp.act_as('chirp_signin');
select is(pg_temp.claim('anon:x3', 'signup-1', '\x01'), 1,
  'the auth service records an anonymous key');
select is(pg_temp.affected($$
  update idempotency_keys set status_code = 201 where owner_key = 'anon:x3' and idempotency_key = 'signup-1'
$$), 1, 'and completes it');
select throws_ok($$ select pg_temp.claim('00000000-0000-4000-a000-00000000000a', 'k9', '\x01') $$,
  '42501', null, 'the auth service cannot record a user''s key');
select is((select count(*)::integer from idempotency_keys where not starts_with(owner_key, 'anon:')), 0,
  'the auth service sees no user''s key');
select is(pg_temp.affected($$
  update idempotency_keys set response_body = '\x00' where owner_key = '00000000-0000-4000-a000-00000000000b'
$$), 0, 'the auth service cannot overwrite a user''s response');
select throws_ok($$ delete from idempotency_keys $$, '42501', null,
  'the auth service cannot delete keys');

reset role;
select results_eq($$
  select owner_key, idempotency_key, request_hash, status_code from idempotency_keys order by 1, 2
$$, $$ values ('00000000-0000-4000-a000-00000000000a', 'k1', '\x01'::bytea, 201),
              ('00000000-0000-4000-a000-00000000000b', 'k-bob', '\xb0', null),
              ('00000000-0000-4000-a000-00000000000b', 'k-old', '\xb2', null),
              ('anon:x1', 'k-anon', '\xa0', null),
              ('anon:x3', 'signup-1', '\x01', 201) $$,
  'every key holds what its owner wrote');
select is((select response_body from idempotency_keys where idempotency_key = 'k-bob'), null,
  'bob''s live key is untouched');
select ok((select created_at = now() from idempotency_keys where idempotency_key = 'k-old'),
  'the reclaimed key starts a new lifetime');

select * from finish();
rollback;
