-- Pulled authors' posts in one index of their own, for the home feed's walk
-- (issue 24).
--
-- A viewer who follows many pulled authors (0012: at or above the fan-out
-- threshold, merged at read time) gets their posts from one walk in time
-- order, down to the page's edge (0029). The walk read every post, everyone's,
-- from posts_created_at_id_idx and fetched each from the table for its author:
-- what it read grew with everyone's posting, though it kept only the followed
-- pulled authors'. It now reads pulled_posts: the posts within retention of
-- the authors pulled now, narrow rows in the walk's order with their author in
-- the index, written once per post (not per follower), so a walk reads the
-- pulled authors' posts only, without a table fetch. On the 1M-post data a
-- heavy follower's feed function fell from 552 to 441 µs of database time and a
-- viewer following 8 pulled authors' from 548 to 392 (docs/HOME_FEED.md).
--
-- The triggers keep it exact, in the post's own transaction:
-- * a post by a pulled author adds its row;
-- * crossing upward copies the author's posts within retention (the walk must
--   find the older ones too: readers skip the rows pushed before the pull);
-- * crossing downward removes them (their follows are read up to the moment
--   of the crossing by probes of the author's index, as before);
-- * a deleted post's row goes with it.
-- Rows past the horizon are never read and the purge removes them.

set local search_path = public;
set local role chirp_owner;

create table pulled_posts (
  created_at timestamptz not null,
  post_id    uuid not null,
  author_id  uuid not null,
  -- Ascending, read backward, like home_timeline's key; the author rides along
  -- so the walk filters without the table.
  constraint pulled_posts_pkey primary key (created_at, post_id) include (author_id)
);

alter table pulled_posts enable row level security;
alter table pulled_posts force row level security;

-- Only the triggers, the feed function and the purge (chirp_owner) touch it.
create policy "the triggers and the feed read pulled posts" on pulled_posts
  for select to chirp_owner
  using (true);
create policy "the timeline triggers record pulled posts" on pulled_posts
  for insert to chirp_owner
  with check (true);
create policy "the triggers and the purge forget pulled posts" on pulled_posts
  for delete to chirp_owner
  using (true);

insert into pulled_posts (created_at, post_id, author_id)
select p.created_at, p.id, p.author_id
from posts p join home_timeline_pulled u on u.author_id = p.author_id
where p.created_at >= app.expired_before('home_timeline')
order by 1, 2;

-- 0012's trigger, and pulled_posts kept beside home_timeline.
create or replace function app.posts_keep_home_timelines() returns trigger
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
        -- This post and every older one within retention: readers walk them all.
        insert into pulled_posts (created_at, post_id, author_id)
        select p.created_at, p.id, p.author_id from posts p
        where p.author_id = new.author_id and p.created_at >= horizon
        -- A statement inserting several posts: this copy already holds the later ones.
        on conflict do nothing;
      else
        insert into pulled_posts (created_at, post_id, author_id) values (new.created_at, new.id, new.author_id)
        on conflict do nothing;
      end if;
    elsif pulled_since is not null then
      -- Pushing starts after this post: it was created before the moment.
      moment := clock_timestamp();
      delete from home_timeline_pulled where author_id = new.author_id;
      update follows set timeline_from = moment where followee_id = new.author_id;
      delete from pulled_posts q
      using posts p
      where p.author_id = new.author_id and p.created_at >= horizon
        and q.created_at = p.created_at and q.post_id = p.id;
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
    if pulled_since is not null then
      delete from pulled_posts q where q.created_at = old.created_at and q.post_id = old.id;
    end if;
  end if;
  return null;
end
$$;

-- 0012's purge, and pulled posts past the horizon, oldest first.
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
  ), pulled as (
    delete from pulled_posts q
    where (q.created_at, q.post_id) in (
      select created_at, post_id from pulled_posts
      where created_at < app.expired_before('home_timeline')
      order by created_at, post_id limit batch_size)
    returning 1
  )
  select ((select count(*) from tokens) + (select count(*) from keys) + (select count(*) from timelines)
          + (select count(*) from pulled))::integer
$$;

-- 0030's function, the walk over pulled_posts.
create or replace function app.home_feed(upper_at timestamptz, upper_id uuid, floor_at timestamptz, floor_id uuid, page integer)
  returns table (created_at timestamptz, id uuid)
  language plpgsql
  stable
  security definer
  rows 21
  set search_path = pg_catalog, public, pg_temp
  -- One plan per statement whatever the viewer follows or how deep the page is, planned once
  -- per connection, and every part read in index order, stopping at its bound (0029).
  set plan_cache_mode = force_generic_plan
  set enable_seqscan = off
  set enable_bitmapscan = off
as $$
#variable_conflict use_column
declare
  viewer constant uuid := app.user_id();
  horizon constant timestamptz := app.expired_before('home_timeline');
  -- A viewer who follows this many pulled authors or more gets theirs from one walk of
  -- `pulled_posts`, not a probe of each author's index (docs/HOME_FEED.md).
  walk_from constant integer := 8;
  -- The walk's bound: this many rows per followed pulled author, plus the page. A probe
  -- reads an author's index from its root; the walk reads narrow rows of one index in
  -- order, 16 of them for about the cost of one probe (measured on the 1M-post data).
  walk_rows_per_author constant integer := 16;
  later_follows integer;
  muting boolean;
  -- How many of the page's posts the statement above the horizon found.
  above integer := 0;
begin
  if viewer is null then
    raise exception 'the home feed is a signed-in user''s' using errcode = 'insufficient_privilege';
  end if;
  select (select count(*) from follows f
          where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon),
         exists (select from mutes m where m.muter_id = viewer)
    into later_follows, muting;
  -- Above the horizon: the short statement for viewers who mute nobody and have few follows
  -- past the horizon, the whole one (walk, edge, cut backfills, mute filters) otherwise.
  if upper_at >= horizon then
    if not muting and later_follows < walk_from then
      return query
      with later as materialized (
        select f.followee_id as author_id, f.timeline_from
        from follows f
        where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
      )
      select k.created_at, k.id from (
        (select q.created_at, q.id from posts q
         where q.author_id = viewer and q.created_at >= horizon
           and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
         order by q.created_at desc, q.id desc
         limit page)
        union all
        (select h.created_at, h.post_id from home_timeline h
         where h.user_id = viewer and h.created_at >= horizon
           and (h.created_at, h.post_id) < (upper_at, upper_id) and (h.created_at, h.post_id) > (floor_at, floor_id)
           and not exists (select from later l where l.author_id = h.author_id and h.created_at < l.timeline_from)
         order by h.created_at desc, h.post_id desc
         limit page)
        union all
        select x.created_at, x.id
        from later l
        cross join lateral (
          select q.created_at, q.id from posts q
          where q.author_id = l.author_id and q.created_at < l.timeline_from and q.created_at >= horizon
            and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
          order by q.created_at desc, q.id desc
          limit page
        ) as x
      ) as k
      order by k.created_at desc, k.id desc
      limit page;
    else
      return query
      with later as materialized (
        select f.followee_id as author_id, f.timeline_from
        from follows f
        where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
          and not (muting and exists (select from mutes m where m.muter_id = viewer and m.muted_id = f.followee_id))
      ), pulled as materialized (
        select count(*) >= walk_from as walks, count(*) * walk_rows_per_author + page as walk_bound
        from later l where l.timeline_from = 'infinity'
      ), cut as materialized (
        select l.author_id, l.timeline_from from later l where l.timeline_from < 'infinity'
      ), pushed as materialized (
        select k.created_at, k.id from (
          (select q.created_at, q.id from posts q
           where q.author_id = viewer and q.created_at >= horizon
             and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
           order by q.created_at desc, q.id desc
           limit page)
          union all
          (select h.created_at, h.post_id from home_timeline h
           where h.user_id = viewer and h.created_at >= horizon
             and (h.created_at, h.post_id) < (upper_at, upper_id) and (h.created_at, h.post_id) > (floor_at, floor_id)
             -- A hashed subplan: an array test would compare each row with every pulled author.
             and h.author_id not in (select l.author_id from later l where l.timeline_from = 'infinity')
             and not exists (select from cut c where c.author_id = h.author_id and h.created_at < c.timeline_from)
             and not (muting and exists (select from mutes m where m.muter_id = viewer and m.muted_id = h.author_id))
           order by h.created_at desc, h.post_id desc
           limit page)
        ) as k
        order by k.created_at desc, k.id desc
        limit page
      ), edge as materialized (
        -- The last of a full page of pushed posts: nothing below it can make the page.
        select coalesce(b.created_at, floor_at) as created_at, coalesce(b.id, floor_id) as id
        from (select) as one
        left join (select p.created_at, p.id from pushed p
                   order by p.created_at desc, p.id desc offset page - 1 limit 1) as b on true
      ), walk_rows as materialized (
        select q.created_at, q.post_id as id, q.author_id from pulled_posts q
        where (select walks from pulled) and q.created_at >= horizon
          and (q.created_at, q.post_id) < (upper_at, upper_id)
          and (q.created_at, q.post_id) > ((select e.created_at from edge e), (select e.id from edge e))
        order by q.created_at desc, q.post_id desc
        limit (select walk_bound from pulled)
      ), walk as materialized (
        select w.created_at, w.id from walk_rows w
        where w.author_id in (select l.author_id from later l where l.timeline_from = 'infinity')
        limit page
      ), walked as materialized (
        -- The walk found a page of pulled posts or reached the edge; otherwise the probes run.
        select (select walks from pulled)
           and ((select count(*) from walk) = page or (select count(*) from walk_rows) < (select walk_bound from pulled)) as yes
      )
      select k.created_at, k.id from (
        select p.created_at, p.id from pushed p
        union all
        select w.created_at, w.id from walk w where (select yes from walked)
        union all
        select x.created_at, x.id
        from later l
        cross join lateral (
          select q.created_at, q.id from posts q
          where q.author_id = l.author_id and q.created_at < l.timeline_from and q.created_at >= horizon
            and (q.created_at, q.id) < (upper_at, upper_id)
            and (q.created_at, q.id) > ((select e.created_at from edge e), (select e.id from edge e))
          order by q.created_at desc, q.id desc
          limit page
        ) as x
        where l.timeline_from < 'infinity' or not (select yes from walked)
      ) as k
      order by k.created_at desc, k.id desc
      limit page;
    end if;
    get diagnostics above = row_count;
  end if;
  -- Below the horizon, only for what is left of the page: the viewer's posts and every
  -- followed author's, one short index range each (the timeline holds none of them).
  if above < page and floor_at < horizon then
    return query
    select x.created_at, x.id
    from (select viewer as author_id
          union all
          select f.followee_id from follows f
          where f.follower_id = viewer
            and not (muting and exists (select from mutes m where m.muter_id = viewer and m.muted_id = f.followee_id))) as a
    cross join lateral (
      select q.created_at, q.id from posts q
      where q.author_id = a.author_id and q.created_at < horizon
        and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
      order by q.created_at desc, q.id desc
      limit page - above
    ) as x
    order by x.created_at desc, x.id desc
    limit page - above;
  end if;
end
$$;
