-- The home feed's cost for a heavy follower of pulled authors stops growing
-- with the number they follow (issue 24).
--
-- 0033's lean statement reads the viewer's follows of pulled authors and hashes
-- them twice (the timeline rows' filter, the walk's), after the function's
-- first query has counted them all: about 6,800 instructions per pulled author
-- followed. The benchmark's heaviest follower follows 66 pulled authors at 1M
-- posts and 242 at 3M, and the transaction with app.home_feed grew from 1.60M
-- to 2.66M instructions (callgrind): the one read that kept less than 0.8 of
-- its 100k rate at 3M.
--
-- A probing statement serves a viewer who follows many pulled authors: it tests
-- each timeline row's author against home_timeline_pulled and each walked
-- post's author against the viewer's follows, one index-only probe each. The
-- walk finds a page of theirs within about page * pulled authors / their
-- follows rows, and a probe costs about four hashed follows, so probing is the
-- cheaper test once they follow sqrt(4 * page * pulled authors) or more (160
-- at 3M, 78 at 1M, never fewer than 64), and the first query counts the
-- follows no further than that. The number of pulled authors comes from the
-- statistics (pg_stat_get_live_tuples), read without a snapshot.
--
-- Callgrind, the transaction with identity, session check and app.home_feed
-- (the service's statements through pgbench), against 0033 on the same data:
-- 3M, heaviest follower (4,998 follows, 242 pulled): 2,664,000 -> 2,056,000;
-- 1M, heaviest (4,997, 66 pulled, still hashed): 1,600,000 -> 1,636,000;
-- 1M, median (16, 1 pulled): 1,011,000 -> 1,034,000. The statistics' read and
-- the count's bound cost every page about 23,000 instructions.

set local search_path = public;
set local role chirp_owner;

-- 0033's function, with the probing statement.
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
  -- One read of the statistics (probe_from): no snapshot of them for the transaction.
  set stats_fetch_consistency = none
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
  cut_follows integer;
  muting boolean;
  -- A viewer who mutes nobody and whose follows past the horizon are all pulled authors' is
  -- read by the probing statement from this many such follows on. Its walk finds a page of
  -- theirs within about page * pulled authors / their follows rows, and a probe by key costs
  -- about four times what hashing a follow does (callgrind, 1M and 3M data): the probes cost
  -- less once they follow sqrt(4 * page * pulled authors) or more; below 64 the hashes
  -- always cost little. The count of pulled authors is the statistics' (no catalog read).
  probe_from constant integer := greatest(64, ceil(sqrt(4 * page
    * greatest(pg_stat_get_live_tuples('home_timeline_pulled'::regclass), 0)::float8))::integer);
  -- How many of the page's posts the statement above the horizon found.
  above integer := 0;
begin
  if viewer is null then
    raise exception 'the home feed is a signed-in user''s' using errcode = 'insufficient_privilege';
  end if;
  -- The follows past the horizon, counted no further than probe_from: what a viewer pays
  -- does not grow with the number they follow. Cut follows sort first (their timeline_from
  -- comes before infinity).
  select count(*), count(*) filter (where f.timeline_from < 'infinity'),
         exists (select from mutes m where m.muter_id = viewer)
    into later_follows, cut_follows, muting
    from (select f.timeline_from from follows f
          where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
          order by f.timeline_from
          limit probe_from) as f;
  -- Above the horizon: the short statement for viewers who mute nobody and have few follows
  -- past the horizon; for those who mute nobody and follow only pulled authors past it, the
  -- probing one (walk and edge, tests by key) when they follow many, the lean one (walk and
  -- edge, hashes) otherwise; the whole one (walk, edge, cut backfills, mute filters) otherwise.
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
    elsif not muting and cut_follows = 0 and later_follows >= probe_from then
      -- Many follows past the horizon, all pulled authors': the lean statement with a probe
      -- by key where it hashes the pulled follows. The walk finds a page of theirs within
      -- about page * pulled authors / later_follows rows; testing each of them (and each
      -- timeline row) by key costs less than reading and hashing all the pulled follows, and
      -- does not grow as the viewer follows more of them.
      return query
      with pushed as materialized (
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
             -- A follow's timeline_from is infinity exactly while its author is pulled (the
             -- crossing sets both): a probe of the small pulled index instead of the follow.
             -- A scalar subquery, so one probe per row (as `not exists`, a hash of all).
             and (select true from home_timeline_pulled a where a.author_id = h.author_id) is null
           order by h.created_at desc, h.post_id desc
           limit page)
        ) as k
        order by k.created_at desc, k.id desc
        limit page
      ), edge as materialized (
        select coalesce(b.created_at, floor_at) as created_at, coalesce(b.id, floor_id) as id
        from (select) as one
        left join (select p.created_at, p.id from pushed p
                   order by p.created_at desc, p.id desc offset page - 1 limit 1) as b on true
      ), walk_rows as materialized (
        select q.created_at, q.post_id as id, q.author_id from pulled_posts q
        where q.created_at >= horizon
          and (q.created_at, q.post_id) < (upper_at, upper_id)
          and (q.created_at, q.post_id) > ((select e.created_at from edge e), (select e.id from edge e))
        order by q.created_at desc, q.post_id desc
        -- A walked row costs a probe here, about what probing an author's index does: one
        -- row per followed author (as counted) plus the page, then the authors' probes.
        limit later_follows + page
      ), walk as materialized (
        select w.created_at, w.id from walk_rows w
        -- Following a pulled author is a follow with timeline_from infinity (above): one
        -- probe of the follow by key, index only.
        where (select true from follows f where f.follower_id = viewer and f.followee_id = w.author_id)
        limit page
      ), walked as materialized (
        select (select count(*) from walk) = page
            or (select count(*) from walk_rows) < later_follows + page as yes
      )
      select k.created_at, k.id from (
        select p.created_at, p.id from pushed p
        union all
        select w.created_at, w.id from walk w where (select yes from walked)
        union all
        select x.created_at, x.id
        from follows l
        cross join lateral (
          select q.created_at, q.id from posts q
          where q.author_id = l.followee_id and q.created_at >= horizon
            and (q.created_at, q.id) < (upper_at, upper_id)
            and (q.created_at, q.id) > ((select e.created_at from edge e), (select e.id from edge e))
          order by q.created_at desc, q.id desc
          limit page
        ) as x
        where l.follower_id = viewer and l.timeline_from = 'infinity' and not (select yes from walked)
      ) as k
      order by k.created_at desc, k.id desc
      limit page;
    elsif not muting and cut_follows = 0 then
      -- Every follow past the horizon is a pulled author's, and nothing is muted: the whole statement without the cut backfills' and the mutes' parts.
      return query
      with pulled as materialized (
        select f.followee_id as author_id
        from follows f
        where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
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
             and h.author_id not in (select l.author_id from pulled l)
           order by h.created_at desc, h.post_id desc
           limit page)
        ) as k
        order by k.created_at desc, k.id desc
        limit page
      ), edge as materialized (
        select coalesce(b.created_at, floor_at) as created_at, coalesce(b.id, floor_id) as id
        from (select) as one
        left join (select p.created_at, p.id from pushed p
                   order by p.created_at desc, p.id desc offset page - 1 limit 1) as b on true
      ), walk_rows as materialized (
        select q.created_at, q.post_id as id, q.author_id from pulled_posts q
        where q.created_at >= horizon
          and (q.created_at, q.post_id) < (upper_at, upper_id)
          and (q.created_at, q.post_id) > ((select e.created_at from edge e), (select e.id from edge e))
        order by q.created_at desc, q.post_id desc
        limit later_follows * walk_rows_per_author + page
      ), walk as materialized (
        select w.created_at, w.id from walk_rows w
        where w.author_id in (select l.author_id from pulled l)
        limit page
      ), walked as materialized (
        select (select count(*) from walk) = page
            or (select count(*) from walk_rows) < later_follows * walk_rows_per_author + page as yes
      )
      select k.created_at, k.id from (
        select p.created_at, p.id from pushed p
        union all
        select w.created_at, w.id from walk w where (select yes from walked)
        union all
        select x.created_at, x.id
        from pulled l
        cross join lateral (
          select q.created_at, q.id from posts q
          where q.author_id = l.author_id and q.created_at >= horizon
            and (q.created_at, q.id) < (upper_at, upper_id)
            and (q.created_at, q.id) > ((select e.created_at from edge e), (select e.id from edge e))
          order by q.created_at desc, q.id desc
          limit page
        ) as x
        where not (select yes from walked)
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
