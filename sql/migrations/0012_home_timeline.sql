-- Home timelines: the home feed as one range scan, whatever the number of
-- accounts a user follows (issue 24).
--
-- home_timeline holds, per user, a row for each post of the people they follow,
-- written when the post is written (in its transaction), by the triggers below:
-- a page of the feed is one range scan of home_timeline_pkey. What it holds:
--
-- * Pushed authors only. An author with at least app.home_timeline_threshold()
--   followers (150) is pulled instead: their posts are written once, to posts,
--   and merged into each follower's page at read time from
--   posts_author_created_at_id_idx, so a post by the most followed author costs
--   no row per follower. Whether an author is pushed or pulled is decided when
--   they post, under the lock on their users row that every post, follow and
--   unfollow of theirs takes (the counter triggers of 0003 take it first):
--   - crossing upward (the author posts with followers >= threshold): from that
--     post on nothing is pushed; home_timeline_pulled records since when, and
--     every follow of the author gets timeline_from = 'infinity', so readers
--     merge all of the author's posts at read time and skip any row already
--     pushed (they stay until unfollow, post deletion or retention removes them).
--   - crossing downward (the author posts with followers < threshold): pushing
--     starts again at that moment (clock_timestamp(), taken under the lock);
--     nothing is pushed retroactively, and every follow of the author gets
--     timeline_from = that moment, so readers merge the older posts at read
--     time (that post itself, created before the moment, is one of them).
--   Either way the author's followers are visited once, at the crossing.
-- * Backfill on follow, bounded. Following a pushed author copies their
--   app.home_timeline_backfill() (200) most recent posts within retention, plus
--   any that share the last one's timestamp; when there were more, the follow's
--   timeline_from records where the copy begins, and older posts are merged at
--   read time. Unfollowing deletes the author's rows for the follower; deleting
--   a post deletes its rows. Each happens in the write's own transaction.
-- * Retention: rows older than app.expired_before('home_timeline'), 30 days,
--   are never read, and app.purge_expired deletes them. A page, or the part of
--   one, older than that is read from the followed authors' own indexes (a
--   merge over every followed author, as every page was before).
--
-- So follows.timeline_from says, for each follow, from when home_timeline is
-- complete for that author: '-infinity' for most, a moment for a cut backfill
-- or an author pushed again, 'infinity' for a pulled author. A reader merges,
-- for positions in its page: its own posts; home_timeline rows from the
-- retention horizon on (skipping rows older than their follow's timeline_from);
-- the posts of followed authors whose timeline_from is later than the horizon
-- (few; found by follows_follower_timeline_from_idx), older than that moment;
-- and, only when the page reaches past the horizon, the older posts of every
-- followed author. Each post comes from exactly one of them, so paging is
-- exact at every depth, across threshold crossings and with ?since=.
--
-- Locking. A post by A, a follow of A and an unfollow of A all lock A's users
-- row before these triggers run (posts_keep_count, follows_keep_count; trigger
-- names sort so that these run after them) and the triggers read what they
-- need after the lock, each statement with a snapshot of its own: a follow
-- either sees a concurrent post of A and copies it, or that post sees the
-- follow and pushes to it.
--
-- No foreign keys on home_timeline: each would cost a check per pushed row
-- (a key-share lock on every follower's users row for user_id) or an index of
-- its own (post_id). Rows of a deleted post or follow are deleted by the
-- triggers; a row whose post is gone anyway drops out of the join that reads it.
--
-- docs/HOME_FEED.md gives the alternatives measured, and the table's size.

set local search_path = public;
set local role chirp_owner;

-- Authors with at least this many followers are pulled, not pushed.
create function app.home_timeline_threshold() returns integer
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select 150
$$;

-- How many of a pushed author's most recent posts a new follow copies.
create function app.home_timeline_backfill() returns integer
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select 200
$$;

create table home_timeline (
  user_id    uuid not null,
  created_at timestamptz not null,
  post_id    uuid not null,
  author_id  uuid not null,
  -- Ascending, read backward: rows arrive in time order within each user's
  -- range, which B-tree page splits keep dense when the key ascends.
  constraint home_timeline_pkey primary key (user_id, created_at, post_id)
);

-- Authors whose posts are not pushed, and since when (rows of theirs pushed
-- before that may remain). Absent: pushed.
create table home_timeline_pulled (
  author_id uuid primary key references users on delete cascade,
  since     timestamptz not null
);

alter table follows add column timeline_from timestamptz not null default '-infinity';

-- The follows whose older posts a reader merges at read time. Most follows have
-- '-infinity' and stay out of it; a reader repeats the predicate.
create index follows_follower_timeline_from_idx on follows (follower_id, timeline_from) include (followee_id)
  where timeline_from > '-infinity';

alter table home_timeline enable row level security;
alter table home_timeline force row level security;
alter table home_timeline_pulled enable row level security;
alter table home_timeline_pulled force row level security;

-- Users read their own timeline; only the triggers and the purge (chirp_owner)
-- write it.
grant select on home_timeline to chirp_user;

create policy "users read their own home timeline" on home_timeline
  for select to chirp_user
  using (user_id = (select app.user_id()));
create policy "the timeline triggers read any home timeline" on home_timeline
  for select to chirp_owner
  using (true);
create policy "the timeline triggers push posts to any home timeline" on home_timeline
  for insert to chirp_owner
  with check (true);
create policy "the timeline triggers and the purge remove any timeline row" on home_timeline
  for delete to chirp_owner
  using (true);

create policy "the timeline triggers read pulled authors" on home_timeline_pulled
  for select to chirp_owner
  using (true);
create policy "the timeline triggers record pulled authors" on home_timeline_pulled
  for insert to chirp_owner
  with check (true);
create policy "the timeline triggers forget pulled authors" on home_timeline_pulled
  for delete to chirp_owner
  using (true);

-- The triggers read follows and set timeline_from, and nothing else of them.
alter policy "anyone can read follows" on follows to chirp_user, chirp_anon, chirp_auth, chirp_owner;
revoke update on follows from chirp_owner;
grant update (timeline_from) on follows to chirp_owner;
create policy "the timeline triggers set when any follow's timeline begins" on follows
  for update to chirp_owner
  using (true)
  with check (true);

-- Retention: the one definition of expired (0009) gains home_timeline.
create or replace function app.expired_before(kind regclass) returns timestamptz
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
    -- created_at: home timelines hold 30 days; older pages merge at read time.
    when 'public.home_timeline'::regclass then now() - interval '30 days'
  end
$$;

-- A post: pushed to every follower's timeline, or (crossing the threshold)
-- the author switches between pushed and pulled. A deleted post: its rows go.
create function app.posts_keep_home_timelines() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
declare
  horizon constant timestamptz := app.expired_before('home_timeline');
  followers integer;
  pulled_since timestamptz;
  moment timestamptz;
begin
  if tg_op = 'INSERT' then
    -- posts_keep_count holds this lock already; reading under it is the point.
    select u.follower_count into followers from users u where u.id = new.author_id for no key update;
    select p.since into pulled_since from home_timeline_pulled p where p.author_id = new.author_id;
    if followers >= app.home_timeline_threshold() then
      if pulled_since is null then
        insert into home_timeline_pulled (author_id, since) values (new.author_id, clock_timestamp());
        update follows set timeline_from = 'infinity' where followee_id = new.author_id;
      end if;
    elsif pulled_since is not null then
      -- Pushing starts after this post: it was created before the moment.
      moment := clock_timestamp();
      delete from home_timeline_pulled where author_id = new.author_id;
      update follows set timeline_from = moment where followee_id = new.author_id;
    else
      insert into home_timeline (user_id, created_at, post_id, author_id)
      select f.follower_id, new.created_at, new.id, new.author_id
      from follows f where f.followee_id = new.author_id;
    end if;
  elsif old.created_at >= horizon then
    select p.since into pulled_since from home_timeline_pulled p where p.author_id = old.author_id;
    -- A pulled author's posts since the pull were never pushed.
    if pulled_since is null or old.created_at < pulled_since then
      delete from home_timeline h
      using follows f
      where f.followee_id = old.author_id
        and h.user_id = f.follower_id and h.created_at = old.created_at and h.post_id = old.id;
    end if;
  end if;
  return null;
end
$$;

create trigger posts_keep_home_timelines
  after insert or delete on posts
  for each row execute function app.posts_keep_home_timelines();

-- A follow: the followee's recent posts, or (pulled) nothing. An unfollow: the
-- followee's rows in the follower's timeline go.
create function app.follows_keep_home_timeline() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
declare
  horizon constant timestamptz := app.expired_before('home_timeline');
  pulled_since timestamptz;
  cut timestamptz;
begin
  -- follows_keep_count holds the locks on both users, taken in id order.
  if tg_op = 'INSERT' then
    select p.since into pulled_since from home_timeline_pulled p where p.author_id = new.followee_id;
    if pulled_since is not null then
      update follows set timeline_from = 'infinity'
      where follower_id = new.follower_id and followee_id = new.followee_id;
      return null;
    end if;
    -- The last of the most recent posts the copy holds; null when it holds all
    -- of those within retention.
    select p.created_at into cut from posts p
    where p.author_id = new.followee_id and p.created_at >= horizon
    order by p.created_at desc, p.id desc
    offset app.home_timeline_backfill() - 1 limit 1;
    insert into home_timeline (user_id, created_at, post_id, author_id)
    select new.follower_id, p.created_at, p.id, p.author_id from posts p
    where p.author_id = new.followee_id and p.created_at >= coalesce(cut, horizon)
    on conflict do nothing;
    if cut is not null then
      update follows set timeline_from = cut
      where follower_id = new.follower_id and followee_id = new.followee_id;
    end if;
  else
    select p.since into pulled_since from home_timeline_pulled p where p.author_id = old.followee_id;
    -- Rows exist only for posts pushed before a pull, and are read only from
    -- the horizon on.
    if pulled_since is null or pulled_since > horizon then
      delete from home_timeline h
      using posts p
      where p.author_id = old.followee_id
        and p.created_at >= horizon and p.created_at < coalesce(pulled_since, 'infinity')
        and h.user_id = old.follower_id and h.created_at = p.created_at and h.post_id = p.id;
    end if;
  end if;
  return null;
end
$$;

create trigger follows_keep_home_timeline
  after insert or delete on follows
  for each row execute function app.follows_keep_home_timeline();

-- Bounded housekeeping (0009), now also for home timelines: up to batch_size
-- expired rows of each kind. Timeline rows are found per user (a skip over
-- home_timeline_pkey's users, then each one's oldest rows), so the purge needs
-- no index of its own and also finds rows of users who no longer exist.
create or replace function app.purge_expired(batch_size integer default 1000) returns integer
  language sql
  volatile
  security definer
  set search_path = public, pg_temp
as $$
  with recursive tokens as (
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
  ), readers(user_id) as (
    (select user_id from home_timeline order by user_id limit 1)
    union all
    select (select h.user_id from home_timeline h where h.user_id > r.user_id order by h.user_id limit 1)
    from readers r where r.user_id is not null
  ), expired_rows as (
    select r.user_id, x.created_at, x.post_id
    from readers r
    cross join lateral (
      select h.created_at, h.post_id from home_timeline h
      where h.user_id = r.user_id and h.created_at < app.expired_before('home_timeline')
      order by h.created_at, h.post_id limit batch_size) as x
    limit batch_size
  ), timelines as (
    delete from home_timeline h
    using expired_rows e
    where h.user_id = e.user_id and h.created_at = e.created_at and h.post_id = e.post_id
    returning 1
  )
  select ((select count(*) from tokens) + (select count(*) from keys) + (select count(*) from timelines))::integer
$$;
