-- A create's 201 names the new resource in its Location header (issue 27), and
-- a replay with the same Idempotency-Key must answer with the same header: the
-- key keeps it beside the status and body it already keeps. Reclaiming an
-- expired key clears it with them.

set local search_path = public;
set local role chirp_owner;

alter table idempotency_keys
  add column location text,
  add constraint idempotency_keys_location_length check (char_length(location) <= 2048);

grant update (location) on idempotency_keys to chirp_user, chirp_signin;
