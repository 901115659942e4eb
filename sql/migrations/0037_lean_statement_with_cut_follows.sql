-- Heavy followers with a cut follow read by the lean statement (issue 24).
--
-- A viewer past the short statement who mutes nobody but has one follow with a
-- cut backfill (or of an author pushed again) got their page from the whole
-- statement: the cut follows read and hashed, a mute filter in every part
-- behind `muting`, the walk's decision as an aggregate. PostgreSQL starts every
-- node of a plan on every execution, whether a one-time filter then skips it or
-- not, and the whole statement is about 60 nodes. A heavy follower is likely
-- to have such a follow: following an author with more posts within retention
-- than the backfill copies cuts it (the benchmark's heaviest and
-- 99th-percentile followers each have one, from the runs' follows).
--
-- Now the lean statement reads every viewer who mutes nobody and has fewer
-- than walk_from (8) cut follows, which the function's first query reads first
-- (a moment sorts before 'infinity'), so it knows there are few. A short
-- statement reads them into two arrays, only when there are any; the timeline
-- skips a row older than its author's cut by a look-up in them, and they are
-- probed above the edge beside the pulled follows (when the walk falls short).
-- The walk runs only with walk_from pulled follows or more, as in the whole
-- statement. The whole statement stays for viewers who mute anyone or have
-- many cut follows; the short one is unchanged.
--
-- In the server process per transaction (callgrind, the page's statements
-- with its identity, no session check, 2026-12-04): on the 1M data the
-- heaviest follower (demo597: 4,997 follows, 102 pulled, one cut) 2,603,000 ->
-- 2,385,000, the 99th-percentile follower (demo6530: 17 pulled, one cut)
-- 2,600,000 -> 2,382,000, the median follower 2,044,000 -> 2,045,000 (same
-- statement); on the 3M data the heaviest follower (242 pulled, no cut: the
-- lean statement before too) 2,784,000 -> 2,833,000 (the probes' part now
-- also starts the cut follows' scan). Sixteen pgbench clients, three
-- alternating 6 s turns (0036's function vs this one): demo6530 2,519-2,851 ->
-- 2,672-3,084 tps, demo597 2,799-3,746 -> 3,815-4,001, the median 5,484-5,902
-- -> 5,804-6,035, the 3M heaviest 4,285-4,468 -> 4,100-4,362.
--
-- Tried and not kept: each part a statement of its own (pushed part, walk,
-- probes, in plpgsql steps, so a page needing no walk or probes starts none of
-- their nodes): the 99th-percentile follower 2,600,000 -> 2,450,000 but the
-- 3M heaviest 2,784,000 -> 2,876,000-3,029,000; a statement's own start (plan
-- cache check, portal, executor state) costs about what the nodes it spares.

set local search_path = public;
set local role chirp_owner;

-- 0036's function, with the lean statement for viewers with few cut follows.
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
  cut_follows integer;
  -- The lean statement's cut follows, when it has any (0037).
  cut_authors uuid[];
  cut_froms timestamptz[];
  muting boolean;
  -- The viewer's follows of pulled authors, one bit per author's slot (0036).
  pulled_bits bit varying;
  latest_pull timestamptz;
  pulled_follows integer;
  -- How many of the page's posts the parts above the horizon found.
  above integer := 0;
begin
  if viewer is null then
    raise exception 'the home feed is a signed-in user''s' using errcode = 'insufficient_privilege';
  end if;
  -- The follows past the horizon, up to walk_from of them, cut ones first (a moment sorts
  -- before 'infinity'): enough to choose the statement, without reading every pulled one.
  select count(*), count(*) filter (where f.timeline_from < 'infinity'),
         exists (select from mutes m where m.muter_id = viewer)
    into later_follows, cut_follows, muting
    from (select f.timeline_from from follows f
          where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
          order by f.timeline_from
          limit walk_from) as f;
  -- Past the short statement, the pulled follows are the viewer's bits (0036), counted there.
  if upper_at >= horizon and (muting or later_follows >= walk_from) then
    select b.authors, b.latest_pull, bit_count(b.authors)
      into pulled_bits, latest_pull, pulled_follows
      from pulled_follow_bits b where b.user_id = viewer;
  end if;
  pulled_follows := coalesce(pulled_follows, 0);
  -- Above the horizon: the short statement for viewers who mute nobody and have few follows
  -- past the horizon; the lean one for those who mute nobody and have few cut follows (most
  -- heavy followers); the whole statement (walk, edge, cut backfills, mute filters) otherwise.
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
      get diagnostics above = row_count;
    elsif not muting and cut_follows < walk_from then
      -- Nothing is muted and every cut follow was read above (fewer than walk_from, read
      -- first): the walk keeps the posts whose author's bit the viewer has, the timeline
      -- skips rows of pulled authors by a probe each and rows older than a cut follow's
      -- timeline_from, the cut follows are probed above the edge, and the pulled follows are
      -- read only if the walk falls short, for the probes (0036, 0037).
      if cut_follows > 0 then
        select array_agg(f.followee_id), array_agg(f.timeline_from)
          into cut_authors, cut_froms
          from follows f
          where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
            and f.timeline_from < 'infinity';
      end if;
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
             -- Rows pushed before their author was pulled: only rows older than the viewer's
             -- latest pull can be, and each of those is tested by a probe by key (a scalar
             -- subquery: as `not exists` it may be planned as a hash of every pulled author).
             and (h.created_at >= latest_pull
                  or (select u.author_id from home_timeline_pulled u where u.author_id = h.author_id) is null)
             and (cut_follows = 0 or h.created_at >= coalesce(cut_froms[array_position(cut_authors, h.author_id)], '-infinity'))
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
        -- With cut follows, fewer than walk_from may be pulled authors': then no walk.
        select q.created_at, q.post_id as id, q.author_slot from pulled_posts q
        where pulled_follows >= walk_from and q.created_at >= horizon
          and (q.created_at, q.post_id) < (upper_at, upper_id)
          and (q.created_at, q.post_id) > ((select e.created_at from edge e), (select e.id from edge e))
        order by q.created_at desc, q.post_id desc
        limit pulled_follows * walk_rows_per_author + page
      ), walk as materialized (
        select w.created_at, w.id from walk_rows w
        -- A case, not an and: get_bit past the end is an error, and quals may be reordered.
        where case when w.author_slot < bit_length(pulled_bits) then get_bit(pulled_bits, w.author_slot) = 1 else false end
        limit page
      ), walked as materialized (
        select pulled_follows >= walk_from
           and ((select count(*) from walk) = page or (select count(*) from walk_rows) < pulled_follows * walk_rows_per_author + page) as yes
      ), probed as materialized (
        -- The follows read by probes of the author's index: the cut ones, and the pulled ones
        -- when the walk did not find the page.
        select c.author_id, c.timeline_from from unnest(cut_authors, cut_froms) as c(author_id, timeline_from)
        union all
        select f.followee_id, f.timeline_from
        from follows f
        where not (select yes from walked) and f.follower_id = viewer and f.timeline_from = 'infinity'
      )
      select k.created_at, k.id from (
        select p.created_at, p.id from pushed p
        union all
        select w.created_at, w.id from walk w where (select yes from walked)
        union all
        select x.created_at, x.id
        from probed l
        cross join lateral (
          select q.created_at, q.id from posts q
          where q.author_id = l.author_id and q.created_at < l.timeline_from and q.created_at >= horizon
            and (q.created_at, q.id) < (upper_at, upper_id)
            and (q.created_at, q.id) > ((select e.created_at from edge e), (select e.id from edge e))
          order by q.created_at desc, q.id desc
          limit page
        ) as x
      ) as k
      order by k.created_at desc, k.id desc
      limit page;
      get diagnostics above = row_count;
    else
      -- A viewer who mutes anyone, or has walk_from cut follows or more: the cut follows are
      -- read and hashed, every part filters the muted; the pulled follows are counted from
      -- the bits, walked by them, and read only for the probes (0036).
      return query
      with cut as materialized (
        select f.followee_id as author_id, f.timeline_from
        from follows f
        where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
          and f.timeline_from < 'infinity'
          and not (muting and exists (select from mutes m where m.muter_id = viewer and m.muted_id = f.followee_id))
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
             and (h.created_at >= latest_pull
                  or (select u.author_id from home_timeline_pulled u where u.author_id = h.author_id) is null)
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
        select q.created_at, q.post_id as id, q.author_id, q.author_slot from pulled_posts q
        where pulled_follows >= walk_from and q.created_at >= horizon
          and (q.created_at, q.post_id) < (upper_at, upper_id)
          and (q.created_at, q.post_id) > ((select e.created_at from edge e), (select e.id from edge e))
        order by q.created_at desc, q.post_id desc
        limit pulled_follows * walk_rows_per_author + page
      ), walk as materialized (
        select w.created_at, w.id from walk_rows w
        where case when w.author_slot < bit_length(pulled_bits) then get_bit(pulled_bits, w.author_slot) = 1 else false end
          and not (muting and exists (select from mutes m where m.muter_id = viewer and m.muted_id = w.author_id))
        limit page
      ), walked as materialized (
        -- The walk found a page of pulled posts or reached the edge; otherwise the probes run.
        select pulled_follows >= walk_from
           and ((select count(*) from walk) = page or (select count(*) from walk_rows) < pulled_follows * walk_rows_per_author + page) as yes
      ), probed as materialized (
        -- The follows read by probes of the author's index: the cut ones, and the pulled ones
        -- when the walk did not find the page.
        select c.author_id, c.timeline_from from cut c
        union all
        select f.followee_id, f.timeline_from
        from follows f
        where not (select yes from walked) and f.follower_id = viewer and f.timeline_from = 'infinity'
          and not (muting and exists (select from mutes m where m.muter_id = viewer and m.muted_id = f.followee_id))
      )
      select k.created_at, k.id from (
        select p.created_at, p.id from pushed p
        union all
        select w.created_at, w.id from walk w where (select yes from walked)
        union all
        select x.created_at, x.id
        from probed l
        cross join lateral (
          select q.created_at, q.id from posts q
          where q.author_id = l.author_id and q.created_at < l.timeline_from and q.created_at >= horizon
            and (q.created_at, q.id) < (upper_at, upper_id)
            and (q.created_at, q.id) > ((select e.created_at from edge e), (select e.id from edge e))
          order by q.created_at desc, q.id desc
          limit page
        ) as x
      ) as k
      order by k.created_at desc, k.id desc
      limit page;
      get diagnostics above = row_count;
    end if;
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
