-- app.user_id() and app.expired_before(), the functions every policy and the
-- home feed call, in PL/pgSQL (issue 24). As SQL functions with a pinned
-- search_path they cannot be inlined, and PostgreSQL parses and plans a SQL
-- function's body again at every call site of every statement: measured on
-- the benchmark data, 30 µs a call of app.user_id() and 65 to 85 µs of
-- app.expired_before() (the five regclass constants are looked up each time),
-- which a home feed page paid several times. PL/pgSQL keeps each expression's
-- plan for the session, so a call costs a few microseconds. Same signatures,
-- volatility, search path, owner and grants; the same values.

set local search_path = public;
set local role chirp_owner;

create or replace function app.user_id() returns uuid
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
begin
  return nullif(current_setting('app.user_id', true), '')::uuid;
end
$$;

create or replace function app.expired_before(kind regclass) returns timestamptz
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
begin
  return case kind
    -- expires_at: each token carries its own lifetime.
    when 'public.refresh_tokens'::regclass then now()
    -- created_at: a retry replays the first response for 24 hours.
    when 'public.idempotency_keys'::regclass then now() - interval '24 hours'
    -- window_start: no attempt budget's window is longer than a day.
    when 'public.rate_limit_hits'::regclass then now() - interval '1 day'
    -- created_at: a snapshot, and every cursor into it, lasts 15 minutes.
    when 'public.explore_snapshots'::regclass then now() - interval '15 minutes'
    -- created_at: home timelines hold 30 days; older pages merge at read time.
    when 'public.home_timeline'::regclass then now() - interval '30 days'
  end;
end
$$;
