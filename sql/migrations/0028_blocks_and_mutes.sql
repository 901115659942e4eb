-- Block and mute (issue 27).
--
-- A block works both ways and is the database's to enforce: neither user reads
-- the other's posts or comments (the select policies of chirp_user), and
-- neither can like, comment on or reply to the other's content or follow the
-- other (the insert policies). A block ends the follows between them, and the
-- notifications either had of the other. Home timelines need no rewrite: with
-- no follow between them, neither's posts are pushed to or pulled into the
-- other's feed, and the read policy covers the rest at read time.
--
-- A mute is private to the muter and hides the muted user's posts from the
-- muter's home feed, the global timeline and explore only: the service's
-- statements for those filter it (it is a preference, not an authorization).
--
-- Cost: every signed-in transaction learns once, as it checks its session,
-- whether its user is in any block (`app.require_session` sets
-- `app.in_any_block`), and the read policies test that setting first: a user
-- in no block (nearly everyone) pays nothing per row. A user in a block pays,
-- per row read, two key probes of `blocks` (its author, each direction),
-- planned with the statement as scalar subqueries: as a function call each
-- row cost three times as much, and as `not exists` the planner hashes every
-- block of the viewer's first. The setting is a shortcut that only the
-- database's own check sets: without it, every row is checked.
-- (docs/BLOCKS_AND_MUTES.md has the measurements.)

set local search_path = public;
set local role chirp_owner;

create table blocks (
  blocker_id uuid not null references users on delete cascade,
  blocked_id uuid not null references users on delete cascade,
  created_at timestamptz not null default now(),
  constraint blocks_pkey primary key (blocker_id, blocked_id),
  constraint blocks_not_self check (blocker_id <> blocked_id)
);
-- The blocker's list, newest first; the other direction's probe and cascade.
create index blocks_blocker_created_at_idx on blocks (blocker_id, created_at desc, blocked_id desc);
create index blocks_blocked_idx on blocks (blocked_id, blocker_id);

create table mutes (
  muter_id   uuid not null references users on delete cascade,
  muted_id   uuid not null references users on delete cascade,
  created_at timestamptz not null default now(),
  constraint mutes_pkey primary key (muter_id, muted_id),
  constraint mutes_not_self check (muter_id <> muted_id)
);
create index mutes_muter_created_at_idx on mutes (muter_id, created_at desc, muted_id desc);
create index mutes_muted_idx on mutes (muted_id);

alter table blocks enable row level security;
alter table blocks force row level security;
alter table mutes enable row level security;
alter table mutes force row level security;

grant select, insert (blocker_id, blocked_id), delete on blocks to chirp_user;
grant select, insert (muter_id, muted_id), delete on mutes to chirp_user;

-- Both sides of a block see it: each is refused by it, and is told so (403
-- `blocked`), so knowing it reveals nothing the API does not.
create policy "both sides read a block" on blocks
  for select to chirp_user
  using (blocker_id = (select app.user_id()) or blocked_id = (select app.user_id()));
create policy "users block as themselves" on blocks
  for insert to chirp_user
  with check (blocker_id = (select app.user_id()));
create policy "users lift their own blocks" on blocks
  for delete to chirp_user
  using (blocker_id = (select app.user_id()));
create policy "the triggers read any block" on blocks
  for select to chirp_owner
  using (true);

create policy "users read their own mutes" on mutes
  for select to chirp_user
  using (muter_id = (select app.user_id()));
create policy "users mute as themselves" on mutes
  for insert to chirp_user
  with check (muter_id = (select app.user_id()));
create policy "users lift their own mutes" on mutes
  for delete to chirp_user
  using (muter_id = (select app.user_id()));

-- Whether the request's user may be in a block: false only for an anonymous
-- caller, or once `app.require_session` found the user in none. Inlined into
-- the policies as plain expressions, evaluated per row for next to nothing.
create function app.viewer_in_block() returns boolean
  language sql
  stable
  return coalesce(current_setting('app.user_id', true), '') <> ''
     and coalesce(current_setting('app.in_any_block', true), '') <> 'off';
revoke execute on function app.viewer_in_block() from public;
grant execute on function app.viewer_in_block() to chirp_user, chirp_anon;

-- The session check every signed-in transaction starts with (0019) also notes
-- whether its user is in any block, for `app.viewer_in_block`.
create or replace function app.require_session(session uuid) returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  perform from refresh_tokens
  where family_id = session and user_id = app.user_id()
    and used_at is null and revoked_at is null and expires_at > now();
  if not found then
    raise exception 'the session has ended' using errcode = 'CH002';
  end if;
  perform set_config('app.in_any_block',
    case when exists (select from blocks b where b.blocker_id = app.user_id())
           or exists (select from blocks b where b.blocked_id = app.user_id())
         then 'on' else 'off' end,
    true);
end
$$;

-- Whether the request's user and `other` are on either side of a block: two
-- key probes, for the insert policies and the functions below.
create function app.blocked_with(other uuid) returns boolean
  language plpgsql
  stable
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  return exists (select from blocks b where b.blocker_id = app.user_id() and b.blocked_id = other)
      or exists (select from blocks b where b.blocker_id = other and b.blocked_id = app.user_id());
end
$$;
revoke execute on function app.blocked_with(uuid) from public;
grant execute on function app.blocked_with(uuid) to chirp_user;

-- Whose post or comment it is, whoever may read it: an insert policy must judge
-- a block with the author of content the block hides from the writer.
create function app.post_author(post uuid) returns uuid
  language sql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$ select author_id from posts where id = post $$;
revoke execute on function app.post_author(uuid) from public;
grant execute on function app.post_author(uuid) to chirp_user;

create function app.comment_author(comment uuid) returns uuid
  language sql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$ select author_id from comments where id = comment $$;
revoke execute on function app.comment_author(uuid) from public;
grant execute on function app.comment_author(uuid) to chirp_user;

-- Whether a block between the request's user and its author hides this post:
-- the service tells 403 `blocked` from 404 with it.
create function app.post_hidden_by_block(post uuid) returns boolean
  language sql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$ select coalesce(app.blocked_with(app.post_author(post)), false) $$;
revoke execute on function app.post_hidden_by_block(uuid) from public;
grant execute on function app.post_hidden_by_block(uuid) to chirp_user;

-- Whether a block between the request's user and `other` hides other's
-- profile (each one's profile answers 404 to the other). Callable anonymously,
-- where nothing is hidden, so a profile's statement is the same for everyone.
create function app.user_hidden_by_block(other uuid) returns boolean
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  return app.user_id() is not null and app.blocked_with(other);
end
$$;
revoke execute on function app.user_hidden_by_block(uuid) from public;
grant execute on function app.user_hidden_by_block(uuid) to chirp_user, chirp_anon;

-- Reads: anonymous callers and the triggers read every post and comment; a
-- signed-in user every one but those across a block.
alter policy "anyone can read posts" on posts to chirp_anon, chirp_owner;
create policy "users read posts outside their blocks" on posts
  for select to chirp_user
  using (not app.viewer_in_block()
         or ((select true from blocks b where b.blocker_id = (select app.user_id()) and b.blocked_id = author_id) is null
             and (select true from blocks b where b.blocker_id = author_id and b.blocked_id = (select app.user_id())) is null));
alter policy "anyone can read comments" on comments to chirp_anon, chirp_owner;
create policy "users read comments outside their blocks" on comments
  for select to chirp_user
  using (not app.viewer_in_block()
         or ((select true from blocks b where b.blocker_id = (select app.user_id()) and b.blocked_id = author_id) is null
             and (select true from blocks b where b.blocker_id = author_id and b.blocked_id = (select app.user_id())) is null));

-- Writes toward the other side of a block are refused (the same setting
-- spares everyone else the probes).
alter policy "users like as themselves" on likes
  with check (user_id = (select app.user_id())
              and (not app.viewer_in_block() or not coalesce(app.blocked_with(app.post_author(post_id)), false)));
alter policy "users comment as themselves" on comments
  with check (author_id = (select app.user_id())
              and (not app.viewer_in_block()
                   or not (coalesce(app.blocked_with(app.post_author(post_id)), false)
                           or coalesce(app.blocked_with(app.comment_author(parent_id)), false))));
alter policy "users follow as themselves" on follows
  with check (follower_id = (select app.user_id()) and (not app.viewer_in_block() or not app.blocked_with(followee_id)));

-- A block ends the follows between the two (their counters and home timelines
-- follow through the follow triggers) and takes each out of the other's
-- notifications (a like group loses its member; an emptied one goes).
create policy "a block ends the follows across it" on follows
  for delete to chirp_owner
  using (true);
create policy "a block takes its users out of each other's notifications" on notification_actors
  for delete to chirp_owner
  using (true);

create function app.blocks_apply() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  delete from follows
  where (follower_id = new.blocker_id and followee_id = new.blocked_id)
     or (follower_id = new.blocked_id and followee_id = new.blocker_id);
  delete from notification_actors
  where (actor_id = new.blocked_id and recipient_id = new.blocker_id)
     or (actor_id = new.blocker_id and recipient_id = new.blocked_id);
  return null;
end
$$;
revoke execute on function app.blocks_apply() from public;

create trigger blocks_apply
  after insert on blocks
  for each row execute function app.blocks_apply();

-- Nobody is told of a mention across a block.
create or replace function app.mentioned_users(body text, author uuid) returns setof uuid
  language sql
  stable
  set search_path = pg_catalog, public, pg_temp
as $$
  select u.id
  from (select lower(m[1]) as username, min(k) as first
        from regexp_matches(body, '(?<![a-z0-9_@])@([a-z0-9_]{3,30})(?![a-z0-9_])', 'gi') with ordinality as found(m, k)
        group by 1
        order by 2
        limit 10) as named
  join users u on u.username = named.username
  where u.id <> author
    and not exists (select from blocks b
                    where (b.blocker_id = u.id and b.blocked_id = author) or (b.blocker_id = author and b.blocked_id = u.id))
$$;

-- Search reads its matches through the full-text index, which a read policy
-- with a condition keeps it from: PostgreSQL evaluates a query's own
-- conditions after the policy's unless they are leakproof, and `@@` is not,
-- so a signed-in user's search scanned every post. The functions that find
-- matches run with their owner's rights (whose read policy has no condition)
-- and leave out, themselves, what a block hides from the request's user.

-- Up to `wanted` matches (all of them when null), in no order.
create function app.posts_matching(query tsquery, wanted integer)
  returns table (id uuid, created_at timestamptz, like_count integer)
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  return query
    select p.id, p.created_at, p.like_count from posts p
    where p.search_vector @@ query
      and (not app.viewer_in_block() or not app.blocked_with(p.author_id))
    limit wanted;
end
$$;
revoke execute on function app.posts_matching(tsquery, integer) from public;
grant execute on function app.posts_matching(tsquery, integer) to chirp_user, chirp_anon;

-- The newest matches, hour by hour (0015), likewise.
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
          where p.search_vector @@ query and app.hour_number(p.created_at) = hour
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

-- Blocking and muting are writes their author's next read must see on a replica.
create trigger blocks_mark_write after insert or delete on blocks
  for each statement execute function app.mark_write();
create trigger mutes_mark_write after insert or delete on mutes
  for each statement execute function app.mark_write();
