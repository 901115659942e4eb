-- Explore: posts ranked by likes, paged from a snapshot so that a client following
-- nextCursor never sees a post twice while likes change under it. A snapshot ranks
-- the top posts once; cursors name the snapshot and a rank. A new first page uses
-- a snapshot at most 30 seconds old (made on demand by the first request that
-- needs one); snapshots are kept 15 minutes, after which their cursors expire.

set local search_path = public;
set local role chirp_owner;

create table explore_snapshots (
  id         bigint generated always as identity primary key,
  created_at timestamptz not null default now()
);

create index explore_snapshots_created_at_idx on explore_snapshots (created_at);

create table explore_ranks (
  snapshot_id bigint not null references explore_snapshots on delete cascade,
  rank        integer not null,
  -- No foreign key: a deleted post simply drops out of the pages that join it.
  post_id     uuid not null,
  primary key (snapshot_id, rank)
);

alter table explore_snapshots enable row level security;
alter table explore_snapshots force row level security;
alter table explore_ranks enable row level security;
alter table explore_ranks force row level security;

grant select on explore_snapshots, explore_ranks to chirp_user, chirp_anon;

create policy "anyone can read explore snapshots" on explore_snapshots
  for select to chirp_user, chirp_anon, chirp_owner
  using (true);
create policy "the ranking job creates explore snapshots" on explore_snapshots
  for insert to chirp_owner
  with check (true);
create policy "the ranking job forgets expired explore snapshots" on explore_snapshots
  for delete to chirp_owner
  using (created_at < now() - interval '15 minutes');

create policy "anyone can read explore ranks" on explore_ranks
  for select to chirp_user, chirp_anon, chirp_owner
  using (true);
create policy "the ranking job ranks posts" on explore_ranks
  for insert to chirp_owner
  with check (true);

-- The newest snapshot younger than max_age_seconds, made now if there is none.
-- Concurrent callers wait on one builder instead of each ranking the table.
create function app.explore_snapshot(max_age_seconds integer default 30, size integer default 1000)
  returns bigint
  language plpgsql
  volatile
  security definer
  set search_path = public, pg_temp
as $$
declare
  snapshot bigint;
begin
  select id into snapshot from explore_snapshots
  where created_at > now() - make_interval(secs => max_age_seconds)
  order by id desc limit 1;
  if snapshot is not null then
    return snapshot;
  end if;

  perform pg_advisory_xact_lock(hashtext('chirp.explore_snapshot'));
  -- Whoever held the lock may have built one meanwhile; this statement sees it.
  select id into snapshot from explore_snapshots
  where created_at > clock_timestamp() - make_interval(secs => max_age_seconds)
  order by id desc limit 1;
  if snapshot is not null then
    return snapshot;
  end if;

  insert into explore_snapshots default values returning id into snapshot;
  insert into explore_ranks (snapshot_id, rank, post_id)
  select snapshot, row_number() over (order by like_count desc, id desc), id
  from (select id, like_count from posts
        order by like_count desc, id desc
        limit least(greatest(size, 1), 10000)) as top;
  delete from explore_snapshots where created_at < now() - interval '15 minutes';
  return snapshot;
end
$$;

grant execute on function app.explore_snapshot(integer, integer) to chirp_user, chirp_anon;
