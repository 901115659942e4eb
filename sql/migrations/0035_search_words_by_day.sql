-- Probes of an hour or a day that cost what the word has there, wherever the
-- hour's posts lie in the table (issue 24).
--
-- app.posts_matching_newest() (0014, 0015, 0028) probes posts_search_idx for a
-- word's matches in one hour, or whether one day has any, by the word and the
-- hour (or day) together. GIN intersects the two posting lists by skipping,
-- which is cheap while the hour's posts sit at the end of the table; but
-- PostgreSQL puts new posts wherever vacuum freed space, and a liked post's
-- new version moves the word's entries to the new row. Then the word's list
-- and a busy hour's interleave, and the intersection reads through both: on
-- the benchmark's million posts, after its write workloads (205,096 posts in
-- one hour, placed in pages 59 to 5,039 of 54,000), learning that that hour
-- had no "swift" read 109 index pages (1.65 ms) and that its day had none as
-- much again, on every search for the word by time, which then answered at a
-- 99th percentile of 57-66 ms at 16 connections.
--
-- The index's second column is now each of the post's words tagged with its
-- day ('d20791:swift'), with the post's hour and day ('h498999', 'd20791')
-- among them, and the probes ask for the tagged words: a word that a day does
-- not have is one lookup in the index's tree (0.04 ms for that hour and that
-- day), and a word it has costs the day's matches of it, not the day's posts.
-- After the change, a search for the word by time behind those posts spent
-- 1.27 ms of PostgreSQL's CPU instead of about 3, and ran at 1,340-1,540
-- req/s (632 before) with a p99 of 27 ms at 16 connections.
--
-- The tagged words are the index's only copy; search_vector keeps its own.
-- The index grows from 98 MB to 233 MB at a million posts (6.8 words a post;
-- tagging each word with its hour instead made it 550 MB), and a new post
-- writes its words twice into it: a post's transaction costs 2,361,000 ->
-- 2,820,000 instructions for that, 2,696,000 before this migration, whose
-- first change (below) saves the rest.
--
-- Building the index takes a SHARE lock on posts: posts can be read but not
-- written until the migration commits (about 40 s for 1.2M posts on the
-- benchmark machine).

set local search_path = public;
set local role chirp_owner;

-- The hour and the day of an instant, as 0014 defined them, with the epoch
-- taken from an interval. extract(epoch from a timestamptz) is only STABLE
-- (other fields of a timestamptz depend on the time zone), and PostgreSQL
-- inlines an IMMUTABLE SQL function only when its body is immutable too; so
-- every call ran through the SQL function executor, which parsed and planned
-- the body again in each statement: about 115,000 instructions a call, two in
-- every new post's index entry. Inlined, a post's transaction costs 2,696,000
-- -> 2,361,000 instructions (callgrind, 1M-post data). Same values: the
-- difference of two instants is exact in seconds.
create or replace function app.hour_number(at timestamptz) returns integer
  language sql
  immutable
  parallel safe
  return floor(extract(epoch from at - timestamptz '1970-01-01 00:00:00+00') / 3600)::integer;

create or replace function app.day_number(at timestamptz) returns integer
  language sql
  immutable
  parallel safe
  return floor(extract(epoch from at - timestamptz '1970-01-01 00:00:00+00') / 86400)::integer;

-- The words of a post's search_vector tagged with its day, and its hour and
-- day as words of their own: the index's keys for app.search_in_hour and
-- app.search_in_day. Every word of a post is tagged, so none reads as an hour
-- or a day ('h499000' in a post becomes 'd20791:h499000'). A tagged word stays
-- under a lexeme's 2,046 bytes: a post is at most 500 characters (2,000
-- bytes), a tag under 12. Without positions, so a phrase's order is rechecked
-- on search_vector. Written out, a tsvector (as a tsquery) quotes each word
-- and doubles a quote or backslash inside it, so the tag goes after each
-- opening quote. Every step is immutable, so the planner inlines the function
-- (a subquery or array_to_string, which is STABLE, would send each new post
-- through the SQL function executor, as above).
create function app.search_day_words(words tsvector, at timestamptz) returns tsvector
  language sql
  immutable
  parallel safe
  return ('h' || app.hour_number(at)::text || ' d' || app.day_number(at)::text)::tsvector
    || regexp_replace(strip(words)::text, '''((?:[^'']|'''')*)''', '''d' || app.day_number(at)::text || ':\1''', 'g')::tsvector;

-- `query` with each word tagged with `day`, as app.search_day_words tags them.
create function app.search_words_on_day(query tsquery, day integer) returns tsquery
  language sql
  immutable
  parallel safe
  return regexp_replace(query::text, '''((?:[^'']|'''')*)''', '''d' || day::text || ':\1''', 'g')::tsquery;

-- The posts of an hour, or a day, matching `query`, as a query of
-- app.search_day_words: the hour or the day itself is always one of its words,
-- so a query of negations alone (`-word`) reads that hour's or day's posts,
-- never every post.
create function app.search_in_hour(query tsquery, hour integer) returns tsquery
  language sql
  immutable
  parallel safe
  return ('h' || hour::text)::tsquery && app.search_words_on_day(query, floor(hour / 24.0)::integer);

create function app.search_in_day(query tsquery, day integer) returns tsquery
  language sql
  immutable
  parallel safe
  return ('d' || day::text)::tsquery && app.search_words_on_day(query, day);

grant execute on function app.search_day_words(tsvector, timestamptz), app.search_words_on_day(tsquery, integer),
  app.search_in_hour(tsquery, integer), app.search_in_day(tsquery, integer) to chirp_user, chirp_anon;

create index posts_search_by_day_idx on posts
  using gin (search_vector, app.search_day_words(search_vector, created_at)) with (fastupdate = off);
drop index posts_search_idx;
alter index posts_search_by_day_idx rename to posts_search_idx;

-- As in 0028, with the probes of the tagged words: `app.search_day_words(…) @@
-- app.search_in_hour(…)` is the index's condition, and ts_match_vq (the
-- function of @@, which the planner does not match to an index) rechecks the
-- query on search_vector, for a phrase's order, without making the index
-- intersect the word's whole list too. A query with no words matches nothing,
-- so it returns at once rather than probing back to the oldest day.
create or replace function app.posts_matching_newest(query tsquery, wanted integer)
  returns table (id uuid, created_at timestamptz, like_count integer)
  language plpgsql
  stable
  security definer
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
  if numnode(query) = 0 then
    return;
  end if;
  select p.created_at into newest from posts p order by p.created_at desc, p.id desc limit 1;
  while needed > 0 and newest is not null loop
    hour := app.hour_number(newest);
    select count(*) into matches from (
      select from posts p
      where app.search_day_words(p.search_vector, p.created_at) @@ app.search_in_hour(query, hour)
        and ts_match_vq(p.search_vector, query)
      limit 4 * needed + 1) m;
    if matches = 0 then
      if probed_day is distinct from floor(hour / 24.0) then
        probed_day := floor(hour / 24.0);
        if not exists (select from posts p
                       where app.search_day_words(p.search_vector, p.created_at) @@ app.search_in_day(query, probed_day)
                         and ts_match_vq(p.search_vector, query)) then
          hour := probed_day * 24;
        end if;
      end if;
    elsif matches <= 4 * needed then
      return query
        select p.id, p.created_at, p.like_count from posts p
        where app.search_day_words(p.search_vector, p.created_at) @@ app.search_in_hour(query, hour)
          and ts_match_vq(p.search_vector, query)
          and (not app.viewer_in_block() or not app.blocked_with(p.author_id))
        order by p.created_at desc, p.id desc;
      get diagnostics returned = row_count;
      needed := needed - returned;
    else
      last_at := null;
      returned := 0;
      for id, created_at, like_count in
        select w.id, w.created_at, w.like_count from (
          select p.id, p.created_at, p.like_count, p.search_vector, p.author_id from posts p
          where p.created_at >= to_timestamp(hour * 3600.0) and p.created_at < to_timestamp((hour + 1) * 3600.0)
          order by p.created_at desc, p.id desc
          limit 64 * needed) w
        where w.search_vector @@ query
          and (not app.viewer_in_block() or not app.blocked_with(w.author_id))
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
          where app.search_day_words(p.search_vector, p.created_at) @@ app.search_in_hour(query, hour)
            and ts_match_vq(p.search_vector, query)
            and (last_at is null or (p.created_at, p.id) < (last_at, last_id))
            and (not app.viewer_in_block() or not app.blocked_with(p.author_id))
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

-- The search statements choose their shape by the statistics: gather them for
-- the new index's expression now.
analyze posts;
