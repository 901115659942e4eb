-- The helpers that policies, triggers and the home feed call in every request,
-- in standard SQL (RETURN …), so that the planner inlines them into the
-- calling statement (issue 24), and the session check in one statement.
--
-- 0013 made app.user_id() and app.expired_before() PL/pgSQL: as SQL functions
-- with a pinned search_path they could not be inlined, and were parsed and
-- planned again at every call. PL/pgSQL keeps its plans, but a call still costs
-- a function call with a search_path to set and restore, whose end walks every
-- setting (PostgreSQL 15): about 47,000 instructions a call of
-- app.expired_before() in the session check's policy on refresh_tokens, and
-- app.user_id() is in every policy. A body in standard SQL is resolved when the
-- function is created, so no search_path reaches it and none is pinned (the
-- structure test allows exactly this), and the planner puts the expression
-- itself in the plan: `(select app.user_id())` in a policy becomes one read of
-- the setting, and app.expired_before('home_timeline') folds to
-- `now() - interval '30 days'`. The same goes for the threshold and backfill of
-- the timeline triggers and app.signing_up() in write_marks' insert policy,
-- which every write's mark reaches (SQL functions with a pinned search_path,
-- planned at every call).
--
-- Measured with callgrind (instructions in the server process per
-- transaction, each as the service sends it, on the 1M-post benchmark data):
-- a median follower's first home feed page 2,309,000 -> 2,105,000, the
-- 99th-percentile follower's 3,217,000 -> 3,024,000, the heaviest's
-- 3,457,000 -> 3,264,000; a signed-in request's identity and session check
-- alone 357,000 -> 281,000.
--
-- Same signatures, volatility, owner and grants; the same values. Inlining
-- needs the caller to hold EXECUTE, which every role that calls them does.

set local search_path = public;
set local role chirp_owner;

create or replace function app.user_id() returns uuid
  language sql
  stable
  return nullif(current_setting('app.user_id', true), '')::uuid;

create or replace function app.expired_before(kind regclass) returns timestamptz
  language sql
  stable
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

create or replace function app.signing_up() returns uuid
  language sql
  stable
  return nullif(current_setting('app.signing_up', true), '')::uuid;

create or replace function app.home_timeline_threshold() returns integer
  language sql
  stable
  return 150;

create or replace function app.home_timeline_backfill() returns integer
  language sql
  stable
  return 200;

-- One statement instead of two: the live session's row and the user's blocks
-- are read together.
create or replace function app.require_session(session uuid) returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  perform set_config('app.in_any_block',
    case when exists (select from blocks b where b.blocker_id = t.user_id)
           or exists (select from blocks b where b.blocked_id = t.user_id)
         then 'on' else 'off' end,
    true)
  from refresh_tokens t
  where t.family_id = session and t.user_id = app.user_id()
    and t.used_at is null and t.revoked_at is null and t.expires_at > now();
  if not found then
    raise exception 'the session has ended' using errcode = 'CH002';
  end if;
end
$$;
