-- Sessions (0019): a refresh-token family is live while it holds a live token,
-- and app.require_session(family) fails every signed-in transaction (SQLSTATE
-- CH002) once it is not, or when the session is someone else's. Fixtures:
-- alice ...0a, bob ...0b.
begin;
\ir support/helpers.sql
select plan(9);

select pg_temp.add_people('alice', 'bob');
insert into refresh_tokens (user_id, family_id, token_hash, expires_at) values
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-b000-00000000000a', '\x0a01', now() + interval '1 day'),
  ('00000000-0000-4000-a000-00000000000b', '00000000-0000-4000-b000-00000000000b', '\x0b01', now() + interval '1 day');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
select lives_ok($$select app.require_session('00000000-0000-4000-b000-00000000000a')$$,
  'a live session of the viewer passes');
select throws_ok($$select app.require_session('00000000-0000-4000-b000-00000000000b')$$,
  'CH002', 'the session has ended', 'another user''s live session does not');
select throws_ok($$select app.require_session('00000000-0000-4000-b000-0000000000ff')$$,
  'CH002', 'the session has ended', 'a session that never existed does not');
select throws_ok('select * from refresh_tokens', '42501', null,
  'the check reads refresh tokens; the request role cannot');

-- Rotation: the used token is replaced by its successor in one statement.
reset role;
update refresh_tokens set used_at = now() where token_hash = '\x0a01';
insert into refresh_tokens (user_id, family_id, token_hash, expires_at) values
  ('00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-b000-00000000000a', '\x0a02', now() + interval '1 day');
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
select lives_ok($$select app.require_session('00000000-0000-4000-b000-00000000000a')$$,
  'a rotated session stays live');

reset role;
update refresh_tokens set expires_at = now() - interval '1 second' where token_hash = '\x0a02';
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
select throws_ok($$select app.require_session('00000000-0000-4000-b000-00000000000a')$$,
  'CH002', 'the session has ended', 'a session whose live token expired has ended');

reset role;
update refresh_tokens set revoked_at = now() where token_hash = '\x0b01';
select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000b');
select throws_ok($$select app.require_session('00000000-0000-4000-b000-00000000000b')$$,
  'CH002', 'the session has ended', 'a revoked session has ended');

select pg_temp.act_as('chirp_anon');
select throws_ok($$select app.require_session('00000000-0000-4000-b000-00000000000b')$$,
  '42501', null, 'an anonymous request cannot call the check');

-- One probe, however many times a session rotated.
reset role;
select ok(exists (select from pg_indexes where indexname = 'refresh_tokens_live_family_idx'
                  and indexdef like '%WHERE ((used_at IS NULL) AND (revoked_at IS NULL))%'),
  'a family''s live token has an index of its own');

select * from finish();
rollback;
