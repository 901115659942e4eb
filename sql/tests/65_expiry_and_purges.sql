-- app.purge_expired(): expired refresh tokens and idempotency keys go, and the
-- policies bound the purge itself. Fixtures: bob ...0b; one expired and one
-- live row of each kind.
begin;
\ir support/helpers.sql
select plan(7);

select pg_temp.add_people('bob');
insert into idempotency_keys (owner_key, idempotency_key, request_hash, created_at) values
  ('00000000-0000-4000-a000-00000000000b', 'k-old', '\xb1', now() - interval '25 hours'),
  ('00000000-0000-4000-a000-00000000000b', 'k-live', '\xb0', now() - interval '23 hours');
insert into refresh_tokens (user_id, family_id, token_hash, expires_at) values
  ('00000000-0000-4000-a000-00000000000b', gen_random_uuid(), '\x01', now() - interval '1 day'),
  ('00000000-0000-4000-a000-00000000000b', gen_random_uuid(), '\x02', now() + interval '1 minute');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select throws_ok($$ select app.purge_expired() $$, '42501', null,
  'a user cannot run the purge');

select pg_temp.act_as('chirp_auth');
select is(app.purge_expired(), 2, 'the purge removes the expired token and the expired key');
select is(app.purge_expired(), 0, 'a second purge finds nothing');

reset role;
select results_eq($$ select token_hash from refresh_tokens $$, $$ values ('\x02'::bytea) $$,
  'the live refresh token stays');
select results_eq($$ select idempotency_key from idempotency_keys $$, $$ values ('k-live') $$,
  'keys younger than 24 hours stay');

-- The policies bound the purge itself, whatever its queries say.
set local role chirp_owner;
select is(pg_temp.affected($$ delete from refresh_tokens $$), 0,
  'chirp_owner cannot delete an unexpired refresh token');
select is(pg_temp.affected($$ delete from idempotency_keys $$), 0,
  'chirp_owner cannot delete a key younger than 24 hours');

select * from finish();
rollback;
