-- The home feed's positions in one owner-rights function (issue 24).
--
-- A page used to be one statement holding every part a viewer might need: the
-- walk over pulled authors' posts, the cut backfills' probes, the mute
-- filters, each part gated by a one-time filter. PostgreSQL starts every node
-- of a plan on every execution, whether a filter skips it or not, and as the
-- request role each scan of `posts` carried the read policy's block checks
-- too: a quarter of a page's time at the database went to starting that plan.
--
-- `app.home_feed` first reads what shape the viewer's follows have (one range
-- of `follows_follower_timeline_from_idx` and one probe of `mutes`), then runs
-- one of two statements, each planned once per connection (the function's
-- settings: generic plans, read in index order):
--
-- - the short one, for viewers who mute nobody and have fewer than
--   `walk_from` follows past the horizon (pulled authors, cut backfills,
--   authors pushed again): their own posts, their timeline rows, a probe of
--   each such follow's index, and the older follows only past the horizon;
-- - the whole one otherwise: the same parts with the walk over pulled
--   authors' posts, the edge that bounds the probes, and the mute filters.
--
-- Both yield positions only (created_at, id); the service joins the page's
-- posts and authors as the request role, so the read policies still judge
-- every post returned. Inside, the function reads as its owner: the viewer is
-- the transaction's identity (`app.user_id()`, never an argument), its
-- timeline rows and mutes are the ones the policies would let it read, and
-- every author it reads is the viewer or one the viewer follows, which a
-- block rules out (0028 ends the follows across a block), so the read
-- policy's block checks have nothing to find there.

set local search_path = public;
set local role chirp_owner;

-- The feed reads the viewer's mutes as its owner, and only those.
create policy "the home feed reads its viewer's mutes" on mutes
  for select to chirp_owner
  using (muter_id = (select app.user_id()));

create function app.home_feed(upper_at timestamptz, upper_id uuid, floor_at timestamptz, floor_id uuid, page integer)
  returns table (created_at timestamptz, id uuid)
  language plpgsql
  stable
  security definer
  rows 21
  set search_path = pg_catalog, public, pg_temp
  -- One plan per statement whatever the viewer follows or how deep the page is, planned once
  -- per connection (planning again for each request would cost more than running it), and
  -- every part read in index order, stopping at its bound: a sequential or bitmap scan reads
  -- all of a range first, which the statistics of a small or young table can make look cheap.
  set plan_cache_mode = force_generic_plan
  set enable_seqscan = off
  set enable_bitmapscan = off
as $$
#variable_conflict use_column
declare
  viewer constant uuid := app.user_id();
  horizon constant timestamptz := app.expired_before('home_timeline');
  -- A viewer who follows this many pulled authors or more gets theirs from one walk of
  -- `posts_created_at_id_idx`, not a probe of each author's index (docs/HOME_FEED.md).
  walk_from constant integer := 8;
  -- The walk's bound: this many posts per followed pulled author, plus the page. A probe
  -- reads an author's index from its root, about what reading four posts in time order
  -- (each from the table, for its author) costs.
  walk_rows_per_author constant integer := 4;
  later_follows integer;
  muting boolean;
begin
  if viewer is null then
    raise exception 'the home feed is a signed-in user''s' using errcode = 'insufficient_privilege';
  end if;

  select (select count(*) from follows f
          where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon),
         exists (select from mutes m where m.muter_id = viewer)
    into later_follows, muting;

  if not muting and later_follows < walk_from then
    return query
    with later as materialized (
      select f.followee_id as author_id, f.timeline_from
      from follows f
      where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
    ), recent as materialized (
      select k.created_at, k.id from (
        (select q.created_at, q.id from posts q
         where q.author_id = viewer
           and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
         order by q.created_at desc, q.id desc
         limit page)
        union all
        (select h.created_at, h.post_id from home_timeline h
         where h.user_id = viewer
           and (h.created_at, h.post_id) < (upper_at, upper_id) and (h.created_at, h.post_id) > (floor_at, floor_id)
           and h.created_at >= horizon
           and not exists (select from later l where l.author_id = h.author_id and h.created_at < l.timeline_from)
         order by h.created_at desc, h.post_id desc
         limit page)
        union all
        select x.created_at, x.id
        from later l
        cross join lateral (
          select q.created_at, q.id from posts q
          where q.author_id = l.author_id and q.created_at < l.timeline_from
            and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
          order by q.created_at desc, q.id desc
          limit page
        ) as x
      ) as k
      order by k.created_at desc, k.id desc
      limit page
    ), older as (
      select x.created_at, x.id
      from follows f
      cross join lateral (
        select q.created_at, q.id from posts q
        where q.author_id = f.followee_id and q.created_at < horizon
          and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
        order by q.created_at desc, q.id desc
        limit page
      ) as x
      where f.follower_id = viewer and f.timeline_from <= horizon
        and (select count(*) from recent r where r.created_at >= horizon) < page
    )
    select t.created_at, t.id
    from (select r.created_at, r.id from recent r union all select o.created_at, o.id from older o) as t
    order by t.created_at desc, t.id desc
    limit page;
    return;
  end if;

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
       where q.author_id = viewer
         and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
       order by q.created_at desc, q.id desc
       limit page)
      union all
      (select h.created_at, h.post_id from home_timeline h
       where h.user_id = viewer
         and (h.created_at, h.post_id) < (upper_at, upper_id) and (h.created_at, h.post_id) > (floor_at, floor_id)
         and h.created_at >= horizon
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
    select q.created_at, q.id, q.author_id from posts q
    where (select walks from pulled)
      and (q.created_at, q.id) < (upper_at, upper_id)
      and (q.created_at, q.id) > ((select e.created_at from edge e), (select e.id from edge e))
    order by q.created_at desc, q.id desc
    limit (select walk_bound from pulled)
  ), walk as materialized (
    select w.created_at, w.id from walk_rows w
    where w.author_id in (select l.author_id from later l where l.timeline_from = 'infinity')
    limit page
  ), walked as materialized (
    -- The walk found a page of pulled posts or reached the edge; otherwise the probes run.
    select (select walks from pulled)
       and ((select count(*) from walk) = page or (select count(*) from walk_rows) < (select walk_bound from pulled)) as yes
  ), recent as materialized (
    select k.created_at, k.id from (
      select p.created_at, p.id from pushed p
      union all
      select w.created_at, w.id from walk w where (select yes from walked)
      union all
      select x.created_at, x.id
      from later l
      cross join lateral (
        select q.created_at, q.id from posts q
        where q.author_id = l.author_id and q.created_at < l.timeline_from
          and (q.created_at, q.id) < (upper_at, upper_id)
          and (q.created_at, q.id) > ((select e.created_at from edge e), (select e.id from edge e))
        order by q.created_at desc, q.id desc
        limit page
      ) as x
      where l.timeline_from < 'infinity' or not (select yes from walked)
    ) as k
    order by k.created_at desc, k.id desc
    limit page
  ), older as (
    select x.created_at, x.id
    from follows f
    cross join lateral (
      select q.created_at, q.id from posts q
      where q.author_id = f.followee_id and q.created_at < horizon
        and (q.created_at, q.id) < (upper_at, upper_id) and (q.created_at, q.id) > (floor_at, floor_id)
      order by q.created_at desc, q.id desc
      limit page
    ) as x
    where f.follower_id = viewer and f.timeline_from <= horizon
      and not (muting and exists (select from mutes m where m.muter_id = viewer and m.muted_id = f.followee_id))
      and (select count(*) from recent r where r.created_at >= horizon) < page
  )
  select t.created_at, t.id
  from (select r.created_at, r.id from recent r union all select o.created_at, o.id from older o) as t
  order by t.created_at desc, t.id desc
  limit page;
end
$$;
revoke execute on function app.home_feed(timestamptz, uuid, timestamptz, uuid, integer) from public;
grant execute on function app.home_feed(timestamptz, uuid, timestamptz, uuid, integer) to chirp_user;
