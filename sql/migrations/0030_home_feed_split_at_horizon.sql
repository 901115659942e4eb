-- The home feed's parts split at the retention horizon (issue 24).
--
-- 0029's statements each ended with the part for posts older than the horizon
-- (`app.expired_before('home_timeline')`, below which `home_timeline` holds
-- nothing): one index range per followed author, behind a one-time filter
-- that ran it only when fewer than a page of the other parts' posts lay at or
-- above the horizon. First pages almost never need it, and every page started
-- its nodes all the same.
--
-- Now the parts above the horizon come from one statement (the short or the
-- whole one, chosen as before) and stop at the horizon: the viewer's own
-- posts, their timeline rows, and the posts of later follows all from the
-- horizon on. Only when that statement returns less than a page does a
-- second one read below the horizon, from the viewer's own index and each
-- followed author's, for what is left of the page. Every post of the first
-- statement is at or above the horizon and every post of the second below it,
-- so the second's rows follow the first's in the feed's order, and each post
-- still comes from exactly one part. That part is written once, where both of
-- 0029's statements carried a copy of it.

set local search_path = public;
set local role chirp_owner;

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
  -- `posts_created_at_id_idx`, not a probe of each author's index (docs/HOME_FEED.md).
  walk_from constant integer := 8;
  -- The walk's bound: this many posts per followed pulled author, plus the page. A probe
  -- reads an author's index from its root, about what reading four posts in time order
  -- (each from the table, for its author) costs.
  walk_rows_per_author constant integer := 4;
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
        select q.created_at, q.id, q.author_id from posts q
        where (select walks from pulled) and q.created_at >= horizon
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
