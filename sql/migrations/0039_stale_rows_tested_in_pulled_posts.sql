-- The home feed's test for rows pushed before their author was pulled reads
-- pulled_posts, not home_timeline_pulled (issue 24).
--
-- PostgreSQL 15 takes up to 16 relation locks per transaction by its fast
-- path, in the backend's own slots; every further one goes through the shared
-- lock table, under one of 16 partition locks that every backend reading the
-- same relations queues on. A heavy follower's feed transaction locked 23
-- relations (tables and the indexes its plans use): the session check's
-- refresh_tokens and blocks, the function's follows, mutes,
-- pulled_follow_bits, home_timeline, home_timeline_pulled, pulled_posts and
-- posts, and the page's join of posts, users and likes, each with an index.
-- Under 16 connections on 2 cores the 7 past the fast path made the feed's
-- backends wait on LWLock:LockManager in about half of the samples taken
-- through HTTP, and pgbench sending the service's transaction ran 2 clients
-- at 5,690 transactions a second and 16 at 4,363 for the heaviest follower
-- (-23%) against 6,408 and 5,516 for the median one (-14%; 17 relations).
--
-- The lean and whole statements probed home_timeline_pulled by author for
-- each timeline row older than the viewer's latest pull. A post within
-- retention is in pulled_posts exactly while its author is pulled: crossing
-- upward copies the author's posts within retention, crossing downward
-- removes them, a pulled author's new post adds its row, a deletion removes
-- it, and the purge only takes rows past the horizon, which the statements
-- never read (0031). So the same test is a probe of pulled_posts by the row's
-- own (created_at, post_id), in the table and index the walk reads anyway:
-- two relations fewer.
--
-- Sixteen pgbench clients sending the service's transaction for the heaviest
-- follower on the 1M data (this with mutes' probe also gone, in three
-- alternating 6 s turns): 4,381-4,637 -> 4,655-5,032 transactions a second.

set local search_path = public;
set local role chirp_owner;

-- 0038's function, pulled authors' rows tested in pulled_posts.
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
  -- The lean statement reads a viewer with fewer cut follows than this (0038).
  lean_cut_follows constant integer := 32;
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
    -- The first query read only cut follows: they are counted, up to lean_cut_follows; the
    -- lean statement reads a viewer with fewer (0038).
    if not muting and cut_follows >= walk_from then
      select count(*) into cut_follows
        from (select from follows f
              where f.follower_id = viewer and f.timeline_from > '-infinity' and f.timeline_from > horizon
                and f.timeline_from < 'infinity'
              limit lean_cut_follows) as c;
    end if;
  end if;
  pulled_follows := coalesce(pulled_follows, 0);
  -- Above the horizon: the short statement for viewers who mute nobody and have few follows
  -- past the horizon; the lean one for those who mute nobody and have fewer than
  -- lean_cut_follows cut follows (heavy followers); the whole statement (walk, edge, cut
  -- backfills, mute filters) otherwise.
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
    elsif not muting and cut_follows < lean_cut_follows then
      -- Nothing is muted and the cut follows are fewer than lean_cut_follows: the walk keeps
      -- the posts whose author's bit the viewer has, the timeline skips rows of pulled authors
      -- by a probe each and rows older than a cut follow's timeline_from, the cut follows are
      -- probed above the edge, and the pulled follows are read only if the walk falls short,
      -- for the probes (0036, 0037, 0038).
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
             -- subquery: as `not exists` it may be planned as a hash). A post within retention
             -- is in pulled_posts exactly while its author is pulled (0031), and the walk reads
             -- that table anyway: one table fewer to lock than home_timeline_pulled (0039).
             and (h.created_at >= latest_pull
                  or (select q.post_id from pulled_posts q where q.created_at = h.created_at and q.post_id = h.post_id) is null)
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
      -- A viewer who mutes anyone, or has lean_cut_follows cut follows or more: the cut
      -- follows are read and hashed, every part filters the muted; the pulled follows are
      -- counted from the bits, walked by them, and read only for the probes (0036).
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
                  or (select q.post_id from pulled_posts q where q.created_at = h.created_at and q.post_id = h.post_id) is null)
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
