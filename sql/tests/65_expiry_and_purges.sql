-- Every purge: expired refresh tokens and idempotency keys (app.purge_expired),
-- attempt windows (housekeeping, as the auth service) and explore snapshots
-- (app.explore_snapshot). Each asks app.expired_before what has expired, and
-- the policies that bound it ask the same. Fixtures: bob ...0b; one expired and
-- one live row of each kind.
begin;
\ir support/helpers.sql
select plan(24);

-- Housekeeping's purge of attempt windows (Ops/Housekeeping.swift), as the
-- auth service runs it. Returns the number of windows removed.
create function pg_temp.purge_attempt_windows(batch_size integer) returns integer
  language sql as $$
  with purged as (
    delete from rate_limit_hits where (bucket, window_start) in (
      select bucket, window_start from rate_limit_hits
      where window_start < app.expired_before('rate_limit_hits') order by window_start limit batch_size)
    returning 1)
  select count(*)::integer from purged
$$;

-- One expired row of each kind, stamped `age` ago (a refresh token expired then).
create function pg_temp.add_expired_rows(age interval) returns void
  language sql as $$
  insert into refresh_tokens (user_id, family_id, token_hash, expires_at)
    values ('00000000-0000-4000-a000-00000000000b', gen_random_uuid(), gen_random_uuid()::text::bytea, now() - age);
  insert into idempotency_keys (owner_key, idempotency_key, request_hash, created_at)
    values ('00000000-0000-4000-a000-00000000000b', gen_random_uuid()::text, '\x00', now() - age);
  insert into rate_limit_hits (bucket, window_start) values ('login-ip:' || gen_random_uuid(), now() - age);
  insert into explore_snapshots (created_at) overriding system value values (now() - age);
$$;

select pg_temp.add_people('bob');
select pg_temp.add_expired_rows(interval '25 hours');
insert into refresh_tokens (user_id, family_id, token_hash, expires_at) values
  ('00000000-0000-4000-a000-00000000000b', gen_random_uuid(), '\x02', now() + interval '1 minute');
insert into idempotency_keys (owner_key, idempotency_key, request_hash, created_at) values
  ('00000000-0000-4000-a000-00000000000b', 'k-live', '\xb0', now() - interval '23 hours'),
  ('anon:x1', 'k-live', '\xa0', now());
insert into rate_limit_hits (bucket, window_start) values
  ('signup-ip:live', now() - interval '23 hours'),
  ('login-ip:live', now());
insert into explore_snapshots (created_at) overriding system value values (now() - interval '14 minutes');

-- How long each kind lives.
select results_eq($$
  select now() - app.expired_before(k)
  from unnest(array['refresh_tokens', 'idempotency_keys', 'rate_limit_hits', 'explore_snapshots']::regclass[]) k
$$, $$ values (interval '0'), (interval '24 hours'), (interval '1 day'), (interval '15 minutes') $$,
  'refresh tokens expire at expires_at, keys after 24 hours, attempt windows after a day, snapshots after 15 minutes');
select is(app.expired_before('users'), null, 'users never expire');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select throws_ok($$ select app.purge_expired() $$, '42501', null,
  'a user cannot run the purge');
select throws_ok($$ select pg_temp.purge_attempt_windows(1000) $$, '42501', null,
  'a user cannot purge attempt windows');

-- The service's housekeeping, as the auth service.
select pg_temp.act_as('chirp_signin');
select is(app.purge_expired(), 2, 'the purge removes the expired token and the expired key');
select is(app.purge_expired(), 0, 'a second purge finds nothing');
select is(pg_temp.purge_attempt_windows(1000), 1, 'housekeeping removes the expired attempt window');
select is(pg_temp.purge_attempt_windows(1000), 0, 'a second pass finds nothing');
select is(pg_temp.affected($$ delete from rate_limit_hits $$), 0,
  'the auth service cannot delete a live attempt window');

-- A new explore snapshot forgets the expired ones.
select pg_temp.act_as('chirp_anon');
select ok(app.explore_snapshot(0, 10) is not null, 'an anonymous caller ranks a new explore snapshot');

reset role;
select results_eq($$ select token_hash from refresh_tokens $$, $$ values ('\x02'::bytea) $$,
  'the live refresh token stays');
select results_eq($$ select owner_key from idempotency_keys order by 1 $$,
  $$ values ('00000000-0000-4000-a000-00000000000b'), ('anon:x1') $$, 'keys younger than 24 hours stay');
select results_eq($$ select bucket from rate_limit_hits order by 1 $$,
  $$ values ('login-ip:live'), ('signup-ip:live') $$, 'windows younger than a day stay');
select results_eq($$ select now() - created_at from explore_snapshots order by 1 $$,
  $$ values (interval '0'), (interval '14 minutes') $$, 'snapshots younger than 15 minutes stay');

-- The policies bound the purges themselves, whatever their queries say.
set local role chirp_owner;
select is(pg_temp.affected($$ delete from refresh_tokens $$), 0,
  'chirp_owner cannot delete an unexpired refresh token');
select is(pg_temp.affected($$ delete from idempotency_keys $$), 0,
  'chirp_owner cannot delete a key younger than 24 hours');
select is(pg_temp.affected($$ delete from explore_snapshots $$), 0,
  'chirp_owner cannot delete a snapshot younger than 15 minutes');
select is((select count(*)::integer from refresh_tokens) + (select count(*)::integer from idempotency_keys), 0,
  'chirp_owner sees no unexpired token or key');

-- One definition: make every lifetime endless and nothing is expired anywhere,
-- not even rows long past the lifetimes above.
reset role;
create or replace function app.expired_before(kind regclass) returns timestamptz
  language sql stable set search_path = pg_catalog, pg_temp
as $$ select '-infinity'::timestamptz $$;
select pg_temp.add_expired_rows(interval '1 year');

select pg_temp.act_as('chirp_signin');
select is(app.purge_expired(), 0, 'with endless lifetimes the purge removes nothing');
select is(pg_temp.purge_attempt_windows(1000), 0, 'nor does housekeeping remove an attempt window');
select is(pg_temp.affected($$ delete from rate_limit_hits $$), 0, 'nor may the auth service');
select pg_temp.act_as('chirp_anon');
select ok(app.explore_snapshot(0, 10) is not null, 'a new explore snapshot is still ranked');
reset role;
select is((select count(*)::integer from explore_snapshots where created_at < now() - interval '1 day'), 1,
  'but it forgets no old one');
set local role chirp_owner;
select is(pg_temp.affected($$ delete from refresh_tokens $$) + pg_temp.affected($$ delete from idempotency_keys $$)
          + pg_temp.affected($$ delete from explore_snapshots $$), 0,
  'nor may chirp_owner delete any of them');

select * from finish();
rollback;
