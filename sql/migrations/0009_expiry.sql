-- What "expired" means, in one place for every kind of row that expires. The
-- purges, and the policies that bound them, all compare against
-- app.expired_before, so a lifetime changes here and nowhere else.

set local search_path = public;
set local role chirp_owner;

-- The moment before which a row of the given table has expired, comparing the
-- column named beside each case; null for a table whose rows never expire.
-- Stable and cheap: a comparison with it can drive an index scan, and policies
-- call it as (select …), once per statement.
create function app.expired_before(kind regclass) returns timestamptz
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select case kind
    -- expires_at: each token carries its own lifetime.
    when 'public.refresh_tokens'::regclass then now()
    -- created_at: a retry replays the first response for 24 hours.
    when 'public.idempotency_keys'::regclass then now() - interval '24 hours'
    -- window_start: no attempt budget's window is longer than a day.
    when 'public.rate_limit_hits'::regclass then now() - interval '1 day'
    -- created_at: a snapshot, and every cursor into it, lasts 15 minutes.
    when 'public.explore_snapshots'::regclass then now() - interval '15 minutes'
  end
$$;

-- The auth service purges attempt windows itself (see its delete policy), and
-- creates with an Idempotency-Key (as chirp_user, or chirp_auth for sign-ups)
-- ask whether a key's replay window has passed.
grant execute on function app.expired_before(regclass) to chirp_auth, chirp_user;

alter policy "the purge finds expired refresh tokens" on refresh_tokens
  using (expires_at < (select app.expired_before('refresh_tokens')));
alter policy "the purge removes expired refresh tokens" on refresh_tokens
  using (expires_at < (select app.expired_before('refresh_tokens')));
alter policy "the purge finds expired idempotency keys" on idempotency_keys
  using (created_at < (select app.expired_before('idempotency_keys')));
alter policy "the purge removes expired idempotency keys" on idempotency_keys
  using (created_at < (select app.expired_before('idempotency_keys')));
alter policy "the auth service forgets windows older than a day" on rate_limit_hits
  using (window_start < (select app.expired_before('rate_limit_hits')));
alter policy "the auth service forgets windows older than a day" on rate_limit_hits
  rename to "the auth service forgets expired attempt windows";
alter policy "the ranking job forgets expired explore snapshots" on explore_snapshots
  using (created_at < (select app.expired_before('explore_snapshots')));

-- Bounded housekeeping the service runs now and then (as chirp_auth): deletes
-- up to batch_size expired refresh tokens and as many expired idempotency keys,
-- oldest first, and returns how many rows went.
create or replace function app.purge_expired(batch_size integer default 1000) returns integer
  language sql
  volatile
  security definer
  set search_path = public, pg_temp
as $$
  with tokens as (
    delete from refresh_tokens
    where id in (select id from refresh_tokens
                 where expires_at < app.expired_before('refresh_tokens')
                 order by expires_at limit batch_size)
    returning 1
  ), keys as (
    delete from idempotency_keys
    where (owner_key, idempotency_key) in (
      select owner_key, idempotency_key from idempotency_keys
      where created_at < app.expired_before('idempotency_keys')
      order by created_at limit batch_size)
    returning 1
  )
  select ((select count(*) from tokens) + (select count(*) from keys))::integer
$$;

-- The newest snapshot younger than max_age_seconds, made now if there is none.
-- Concurrent callers wait on one builder instead of each ranking the table, and
-- the builder forgets the snapshots that have expired.
create or replace function app.explore_snapshot(max_age_seconds integer default 30, size integer default 1000) returns bigint
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
declare
  max_age constant interval := make_interval(secs => max_age_seconds);
  -- At least one post, and never more than 10,000.
  ranked constant integer := least(greatest(size, 1), 10000);
  snapshot bigint;
begin
  select id into snapshot from explore_snapshots
  where created_at > now() - max_age order by id desc limit 1;
  if snapshot is null then
    perform pg_advisory_xact_lock(hashtext('chirp.explore_snapshot'));
    -- Whoever held the lock may have built one meanwhile; this statement sees it.
    select id into snapshot from explore_snapshots
    where created_at > clock_timestamp() - max_age order by id desc limit 1;
  end if;
  if snapshot is null then
    insert into explore_snapshots default values returning id into snapshot;
    insert into explore_ranks (snapshot_id, rank, post_id)
    select snapshot, row_number() over (order by like_count desc, id desc), id
    from (select id, like_count from posts order by like_count desc, id desc limit ranked) as top;
    delete from explore_snapshots where created_at < app.expired_before('explore_snapshots');
  end if;
  return snapshot;
end
$$;
