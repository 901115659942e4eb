-- A heavy follower's page without reading their follows of pulled authors
-- (issue 24).
--
-- A viewer who follows many pulled authors (0012: at or above the fan-out
-- threshold, merged at read time) gets their page from the lean statement
-- (0033), which read those follows to count them, listed them, and hashed
-- them twice: to skip the timeline's rows of pulled authors and to keep the
-- walk's posts of followed ones. About 6,800 instructions per pulled author
-- followed (callgrind, docs/HOME_FEED.md), and their number grows with the
-- data: the heaviest follower follows 4 pulled authors at 100k posts, 66 at
-- 1M and 242 at 3M, so their page cost more the more authors crossed the
-- threshold, though it reads the same page.
--
-- Now every author ever pulled has a slot (a number, never reused), and each
-- user a bit string with the slots of the pulled authors they follow, kept by
-- triggers on follows in the write's transaction: a bit is set exactly while
-- the follow's timeline_from is 'infinity' (0012: the author is pulled). The
-- page reads that one row: the count is its bits, the walk keeps a post when
-- the bit of its author's slot (carried in pulled_posts' index) is set, and
-- the timeline skips a row whose author is pulled now by one probe of
-- home_timeline_pulled (a page's rows, not every pulled author). The follows
-- themselves are read only when the walk falls short and the probes run.
--
-- Slots are never reused, so a bit left behind cannot come to mean another
-- author: an author pushed again or gone has no posts in pulled_posts. The
-- string grows with the authors ever pulled, one bit each (a user following
-- 5,000 of 50,000 such authors holds 6 kB).
--
-- Who writes what: crossing the threshold updates every follow of the author
-- (0012), and each update sets or clears that follower's bit; a follow of a
-- pulled author sets timeline_from to 'infinity' (0012), an unfollow deletes
-- the follow; both already hold the author's users row (the counters), so a
-- bit and the author's state cannot race. A post by a pulled author takes its
-- slot into pulled_posts. Each row also keeps the latest moment an author its
-- user followed was pulled: timeline rows from then on need no probe.
--
-- The function's first query now reads at most 8 follows past the horizon
-- (enough to choose the short statement), and only viewers past it read their
-- bits. In the server process per transaction (callgrind, the page's
-- statements with its identity, no session check, 2026-12-04, on the 1M and
-- 3M data after the benchmark runs' writes): the heaviest follower at 3M
-- (4,998 follows, 242 pulled, lean statement) 3,927,000 -> 2,784,000; at 1M
-- (4,997 follows, 102 pulled, whole statement: a cut follow) 3,400,000 ->
-- 2,886,000; the 99th-percentile followers (17-19 pulled) 3,296,000 ->
-- 3,245,000 at 3M and 2,841,000 -> 2,828,000 at 1M; the median follower
-- (short statement) 2,031,000 -> 2,044,000. Sixteen pgbench clients, three
-- alternating 6 s turns: the 3M heaviest follower 2,043-2,284 -> 2,683-2,846
-- tps; at 1M 1,944-2,029 -> 2,013-2,123; the median follower unchanged within
-- the turns' spread.

set local search_path = public;
set local role chirp_owner;

create table pulled_author_slots (
  -- No foreign key: a slot outlives its author, so it is never handed on.
  author_id uuid primary key,
  slot      integer not null generated always as identity (minvalue 0 start with 0)
);

create table pulled_follow_bits (
  user_id uuid primary key references users on delete cascade,
  -- Bit n is set when the user follows the pulled author of slot n.
  authors bit varying not null,
  -- The latest moment an author they followed was pulled: their timeline rows
  -- from then on are no pulled author's (rows pushed before a pull stay).
  latest_pull timestamptz not null default '-infinity'
);

alter table pulled_author_slots enable row level security;
alter table pulled_author_slots force row level security;
alter table pulled_follow_bits enable row level security;
alter table pulled_follow_bits force row level security;

-- Only the triggers and the feed function (chirp_owner) read or write them.
create policy "the timeline triggers and the feed read slots" on pulled_author_slots
  for select to chirp_owner
  using (true);
create policy "the timeline triggers give pulled authors slots" on pulled_author_slots
  for insert to chirp_owner
  with check (true);
create policy "the timeline triggers and the feed read followed slots" on pulled_follow_bits
  for select to chirp_owner
  using (true);
create policy "the timeline triggers record followed slots" on pulled_follow_bits
  for insert to chirp_owner
  with check (true);
-- The triggers change the bits and the latest pull, and nothing else of a row.
revoke update on pulled_follow_bits from chirp_owner;
grant update (authors, latest_pull) on pulled_follow_bits to chirp_owner;
create policy "the timeline triggers change followed slots" on pulled_follow_bits
  for update to chirp_owner
  using (true)
  with check (true);

-- The author's slot, given at the first need. Callers hold the author's users
-- row (the counter triggers), so two cannot give one author two slots.
create function app.pulled_author_slot(author uuid) returns integer
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
declare
  found integer;
begin
  select s.slot into found from pulled_author_slots s where s.author_id = author;
  if found is null then
    insert into pulled_author_slots (author_id) values (author) returning slot into found;
  end if;
  return found;
end
$$;
revoke execute on function app.pulled_author_slot(uuid) from public;

-- bits with bit `slot` set to `value`, grown with zeros when it is shorter.
create function app.bits_with(bits bit varying, slot integer, value integer) returns bit varying
  language sql
  immutable
  parallel safe
return case
  when slot < bit_length(bits) then set_bit(bits, slot, value)
  when value = 0 then bits
  else set_bit(bits || repeat('0', slot + 1 - bit_length(bits))::bit varying, slot, 1)
end;
revoke execute on function app.bits_with(bit varying, integer, integer) from public;

-- The bit string with exactly these slots set (the migration and the seed).
create function app.bits_of(slots integer[]) returns bit varying
  language sql
  immutable
  parallel safe
return (
  select coalesce(string_agg(case when s.slot is null then '0' else '1' end, '' order by i), '')::bit varying
  from generate_series(0, (select max(x) from unnest(slots) x)) i
  left join (select distinct x as slot from unnest(slots) x) s on s.slot = i
);
revoke execute on function app.bits_of(integer[]) from public;

-- A follow's bit follows its timeline_from: set while 'infinity'.
create function app.follows_keep_pulled_follow_bits() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
declare
  slot integer;
  pulled timestamptz;
begin
  if tg_op <> 'DELETE' and new.timeline_from = 'infinity' then
    slot := app.pulled_author_slot(new.followee_id);
    -- Unknown, every row is tested (readers probe home_timeline_pulled).
    pulled := coalesce((select p.since from home_timeline_pulled p where p.author_id = new.followee_id), 'infinity');
    insert into pulled_follow_bits as b (user_id, authors, latest_pull)
    values (new.follower_id, app.bits_with(B'', slot, 1), pulled)
    on conflict (user_id) do update
      set authors = app.bits_with(b.authors, slot, 1), latest_pull = greatest(b.latest_pull, excluded.latest_pull);
  else
    update pulled_follow_bits b set authors = app.bits_with(b.authors, s.slot, 0)
    from pulled_author_slots s
    where b.user_id = old.follower_id and s.author_id = old.followee_id;
  end if;
  return null;
end
$$;
revoke execute on function app.follows_keep_pulled_follow_bits() from public;

create trigger follows_keep_pulled_follow_bits_on_follow
  after insert on follows
  for each row when (new.timeline_from = 'infinity')
  execute function app.follows_keep_pulled_follow_bits();
create trigger follows_keep_pulled_follow_bits_on_change
  after update of timeline_from on follows
  for each row when ((old.timeline_from = 'infinity') <> (new.timeline_from = 'infinity'))
  execute function app.follows_keep_pulled_follow_bits();
create trigger follows_keep_pulled_follow_bits_on_unfollow
  after delete on follows
  for each row when (old.timeline_from = 'infinity')
  execute function app.follows_keep_pulled_follow_bits();

-- pulled_posts carries its author's slot in the index the walk reads.
create function app.pulled_posts_take_slot() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
begin
  new.author_slot := app.pulled_author_slot(new.author_id);
  return new;
end
$$;
revoke execute on function app.pulled_posts_take_slot() from public;

alter table pulled_posts add column author_slot integer;

create trigger pulled_posts_take_slot
  before insert on pulled_posts
  for each row execute function app.pulled_posts_take_slot();

-- What the triggers would have written: a slot for each pulled author (and for
-- any author a follow reads at read time), then each user's bits.
insert into pulled_author_slots (author_id)
select a.author_id from (
  select p.author_id, p.since from home_timeline_pulled p
  union
  select f.followee_id, 'infinity' from follows f where f.timeline_from = 'infinity'
    and not exists (select from home_timeline_pulled p where p.author_id = f.followee_id)
) as a
order by a.since, a.author_id;

insert into pulled_follow_bits (user_id, authors, latest_pull)
select f.follower_id, app.bits_of(array_agg(s.slot)), max(coalesce(p.since, 'infinity'))
from follows f
join pulled_author_slots s on s.author_id = f.followee_id
left join home_timeline_pulled p on p.author_id = f.followee_id
where f.timeline_from = 'infinity'
group by f.follower_id;

-- Once, as the table's owner: no policy lets anyone update pulled_posts.
alter table pulled_posts no force row level security;
update pulled_posts q set author_slot = s.slot
from pulled_author_slots s where s.author_id = q.author_id;
alter table pulled_posts force row level security;

alter table pulled_posts alter column author_slot set not null;
alter table pulled_posts drop constraint pulled_posts_pkey;
alter table pulled_posts add constraint pulled_posts_pkey primary key (created_at, post_id) include (author_id, author_slot);

-- 0033's function: the first query counts the pulled follows from the bits, and
-- the lean statement walks by them.
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
  -- The viewer's follows of pulled authors, one bit per author's slot (0036).
  pulled_bits bit varying;
  latest_pull timestamptz;
  pulled_follows integer;
  later_follows integer;
  cut_follows integer;
  muting boolean;
  -- How many of the page's posts the statement above the horizon found.
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
  -- past the horizon; the lean one (walk and edge) for those who mute nobody and follow only
  -- pulled authors past it; the whole one (walk, edge, cut backfills, mute filters) otherwise.
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
    elsif not muting and cut_follows = 0 then
      -- Every follow past the horizon is a pulled author's, and nothing is muted: the walk
      -- keeps the posts whose author's bit the viewer has, the timeline skips rows of pulled
      -- authors by a probe each, and the follows are read only if the walk falls short, for
      -- the probes (0036).
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
        select q.created_at, q.post_id as id, q.author_slot from pulled_posts q
        where q.created_at >= horizon
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
        select (select count(*) from walk) = page
            or (select count(*) from walk_rows) < pulled_follows * walk_rows_per_author + page as yes
      ), pulled as materialized (
        select f.followee_id as author_id
        from follows f
        where f.follower_id = viewer and f.timeline_from = 'infinity'
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
      -- The cut follows (few) are read and hashed as before; the pulled ones are counted from
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
