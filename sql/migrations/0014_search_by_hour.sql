-- The newest matches of a common word without walking past the posts that
-- lack it (issue 24).
--
-- A search by `recent` for a common word walks posts_created_at_id_idx and
-- keeps the matches. When the newest posts lack the word (a burst of other
-- posts, a word that went out of use), the walk reads every one of them before
-- the first match: 160,000 posts without "swift" cost 32 ms alone and half a
-- second under load, and sorting every match instead reads all 185,000 of them.
--
-- The GIN index now also holds each post's hour and day, so one probe finds the
-- matches of one hour (or whether a day has any). GIN intersects the word's
-- list with the hour's by skipping, so a probe costs what the two lists share
-- in their stretch of the table, not the posts of the hour: 0.1 ms for the
-- hour of those 160,000 posts. app.posts_matching_newest() probes hour by hour
-- from the newest post back and skips each day without a match in one probe.
-- The index serves search_vector alone exactly as the one it replaces.
--
-- Building the index takes a SHARE lock on posts: posts can be read but not
-- written until the migration commits (about 40 s for 1.1M posts on the
-- benchmark machine).

-- btree_gin (the GIN operator classes for integers) is a trusted extension: a
-- database owner may create it.
create extension if not exists btree_gin;

set local search_path = public;
set local role chirp_owner;

-- Hours and days since the epoch. Both are floors of the same instant, so the
-- day of an hour h is floor(h / 24) whatever the sign. Immutable: the epoch of
-- a timestamptz does not depend on the time zone.
create function app.hour_number(at timestamptz) returns integer
  language sql
  immutable
  parallel safe
  return floor(extract(epoch from at) / 3600)::integer;

create function app.day_number(at timestamptz) returns integer
  language sql
  immutable
  parallel safe
  return floor(extract(epoch from at) / 86400)::integer;

-- A search's statements spell the index's expressions; the planner inlines the
-- calls only for a role that may execute them.
grant execute on function app.hour_number(timestamptz), app.day_number(timestamptz) to chirp_user, chirp_anon;

create index posts_search_idx on posts
  using gin (search_vector, app.hour_number(created_at), app.day_number(created_at)) with (fastupdate = off);
drop index posts_search_vector_idx;

-- The posts matching `query`, newest first (created_at, then id, descending):
-- at least `wanted` of them when there are that many, and then the rest of the
-- last hour read. Probes each hour from the newest post's back to the oldest
-- post's; at the last hour of a day, one probe of the whole day skips the day
-- when it holds no match. Costs one probe per hour read and per day skipped
-- (0.03 to 0.1 ms each when empty) plus the matches of the hours read. Runs as
-- the caller, under its row-level security.
create function app.posts_matching_newest(query tsquery, wanted integer)
  returns table (id uuid, created_at timestamptz, like_count integer)
  language plpgsql
  stable
  set search_path = pg_catalog, public, pg_temp
as $$
declare
  hour integer;
  oldest integer;
  found integer := 0;
  returned integer;
begin
  select app.hour_number(p.created_at) into hour from posts p order by p.created_at desc, p.id desc limit 1;
  select app.hour_number(p.created_at) into oldest from posts p order by p.created_at, p.id limit 1;
  while found < wanted and hour >= oldest loop
    if floor((hour + 1) / 24.0) > floor(hour / 24.0) and not exists (
        select from posts p
        where p.search_vector @@ query and app.day_number(p.created_at) = floor(hour / 24.0)::integer) then
      hour := hour - 24;
      continue;
    end if;
    return query
      select p.id, p.created_at, p.like_count from posts p
      where p.search_vector @@ query and app.hour_number(p.created_at) = hour
      order by p.created_at desc, p.id desc;
    get diagnostics returned = row_count;
    found := found + returned;
    hour := hour - 1;
  end loop;
end
$$;

grant execute on function app.posts_matching_newest(tsquery, integer) to chirp_user, chirp_anon;

-- The search statements choose their shape by the statistics: gather them for
-- the new index's expressions now.
analyze posts;
