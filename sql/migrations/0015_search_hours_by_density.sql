-- The newest matches of a word, at a cost set by the matches read, not by the
-- hours and days between them (issue 24).
--
-- app.posts_matching_newest() (migration 0014) stepped back one hour at a
-- time, probed a day whenever it reached a day's last hour, and read every
-- match of each hour it probed. Three costs followed, each measured on the
-- benchmark's million posts with a common word whose newest match lay behind
-- 340,000 posts without it:
--   - a probe of posts_search_idx costs what the word's list and the hour's
--     (or day's) share in their stretch of the table, and a bitmap is built
--     whole before a row is returned: probing a busy day for a common word read
--     its 12,000 matches to learn that it had one;
--   - an hour with hundreds of matches returned them all (heap reads and a
--     sort) for a page of twenty;
--   - the empty hours between two posts were probed one by one.
-- Now the function jumps from each hour to the hour of the next older post (one
-- step down posts_created_at_id_idx, whatever lies between), probes a day only
-- after an hour without a match (a busy day's first hour has one), counts an
-- hour's matches only up to what decides how to read them, and walks an hour
-- that holds many more matches than the page needs, newest first, like the
-- search's own walk.

set local search_path = public;
set local role chirp_owner;

-- The posts matching `query`, newest first (created_at, then id, descending):
-- at least `wanted` of them when there are that many, and then the rest of the
-- last hour read in full. From the newest post back, each hour that holds a
-- post:
--   - no match: the next older post's hour, or, when this is the first empty
--     hour of its day and the day holds no match either, the next older post's
--     hour before that day;
--   - up to four times the matches still needed: all of them, sorted;
--   - more: a walk of the hour newest first, stopping at the matches still
--     needed or after 64 posts for each (the hour's matches are then bunched
--     away from its end, and the rest of them are read as above).
-- Runs as the caller, under its row-level security.
create or replace function app.posts_matching_newest(query tsquery, wanted integer)
  returns table (id uuid, created_at timestamptz, like_count integer)
  language plpgsql
  stable
  set search_path = pg_catalog, public, pg_temp
as $$
declare
  newest timestamptz;
  hour integer;
  probed_day integer;
  needed integer := wanted;
  matches integer;
  returned integer;
  last_at timestamptz;
  last_id uuid;
begin
  select p.created_at into newest from posts p order by p.created_at desc, p.id desc limit 1;
  while needed > 0 and newest is not null loop
    hour := app.hour_number(newest);
    select count(*) into matches from (
      select from posts p
      where p.search_vector @@ query and app.hour_number(p.created_at) = hour
      limit 4 * needed + 1) m;
    if matches = 0 then
      if probed_day is distinct from floor(hour / 24.0) then
        probed_day := floor(hour / 24.0);
        if not exists (select from posts p
                       where p.search_vector @@ query and app.day_number(p.created_at) = probed_day) then
          hour := probed_day * 24;
        end if;
      end if;
    elsif matches <= 4 * needed then
      return query
        select p.id, p.created_at, p.like_count from posts p
        where p.search_vector @@ query and app.hour_number(p.created_at) = hour
        order by p.created_at desc, p.id desc;
      get diagnostics returned = row_count;
      needed := needed - returned;
    else
      last_at := null;
      returned := 0;
      for id, created_at, like_count in
        select w.id, w.created_at, w.like_count from (
          select p.id, p.created_at, p.like_count, p.search_vector from posts p
          where p.created_at >= to_timestamp(hour * 3600.0) and p.created_at < to_timestamp((hour + 1) * 3600.0)
          order by p.created_at desc, p.id desc
          limit 64 * needed) w
        where w.search_vector @@ query
        limit needed
      loop
        return next;
        last_at := created_at;
        last_id := id;
        returned := returned + 1;
      end loop;
      if returned < needed then
        return query
          select p.id, p.created_at, p.like_count from posts p
          where p.search_vector @@ query and app.hour_number(p.created_at) = hour
            and (last_at is null or (p.created_at, p.id) < (last_at, last_id))
          order by p.created_at desc, p.id desc;
        get diagnostics matches = row_count;
        returned := returned + matches;
      end if;
      needed := needed - returned;
    end if;
    select p.created_at into newest from posts p
    where p.created_at < to_timestamp(hour * 3600.0)
    order by p.created_at desc, p.id desc limit 1;
  end loop;
end
$$;
