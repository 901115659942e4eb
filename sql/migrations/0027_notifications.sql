-- Notifications (issue 27): someone followed you, liked your post, commented
-- on your post, replied to your comment, mentioned you. Each is written by a
-- trigger in the transaction of its cause, and each is held by its cause
-- through a cascading foreign key, so whatever removes the cause removes the
-- notification too: an unfollow, a deleted comment or post, an unlike (which
-- takes its liker out of the group), a deleted account (whose rows cascade).
-- Only the recipient reads them (row-level security); nobody writes them but
-- the triggers (chirp_owner).
--
-- Likes of one post group into one notification while it is unread. Read is a
-- watermark per user, `notification_reads`: every notification at or below
-- that position (latest_at, id) in the user's list is read. Marking read is
-- one row's write however many notifications it covers, and a like joining
-- an unread group moves the group to the top (latest_at), where it stays
-- unread whatever watermark is set later from an older listing; a like after
-- the group was read starts a new group.

set local search_path = public;
set local role chirp_owner;

create table notifications (
  id           uuid primary key default gen_random_uuid(),
  recipient_id uuid not null references users on delete cascade,
  kind         text not null,
  -- The cause: a follow (its follower), a post (liked, commented on, or
  -- mentioning the recipient), a comment (on the recipient's post, replying
  -- to their comment, or mentioning them).
  follower_id  uuid,
  post_id      uuid references posts on delete cascade,
  comment_id   uuid references comments on delete cascade,
  -- When the newest actor acted; orders the list with id.
  latest_at    timestamptz not null,
  actor_count  integer not null default 0,
  constraint notifications_kind check (kind in ('follow', 'like', 'comment', 'reply', 'mention')),
  constraint notifications_cause check (case kind
    when 'follow' then follower_id is not null and post_id is null and comment_id is null
    when 'like' then follower_id is null and post_id is not null and comment_id is null
    when 'mention' then follower_id is null and post_id is not null
    else follower_id is null and post_id is not null and comment_id is not null end),
  constraint notifications_actor_count_nonnegative check (actor_count >= 0),
  constraint notifications_follow_fkey foreign key (follower_id, recipient_id)
    references follows (follower_id, followee_id) on delete cascade
);

-- Who acted, newest first. A like group's member also names its like, so an
-- unlike takes it out of the group.
create table notification_actors (
  notification_id uuid not null references notifications on delete cascade,
  actor_id        uuid not null references users on delete cascade,
  -- The notification's recipient, for the read policy.
  recipient_id    uuid not null,
  liked_post_id   uuid,
  acted_at        timestamptz not null,
  constraint notification_actors_pkey primary key (notification_id, actor_id),
  constraint notification_actors_like_fkey foreign key (actor_id, liked_post_id)
    references likes (user_id, post_id) on delete cascade
);

-- How far each user has read: everything at or below this position.
create table notification_reads (
  user_id uuid primary key references users on delete cascade,
  read_at timestamptz not null,
  read_id uuid not null
);

-- The list, newest first, and the unread count above the watermark.
create index notifications_recipient_latest_idx on notifications (recipient_id, latest_at desc, id desc);
-- A post's notifications: the like group to join, and the post's cascade.
create index notifications_post_idx on notifications (post_id, kind, latest_at desc);
create index notifications_comment_idx on notifications (comment_id) where comment_id is not null;
create index notifications_follow_idx on notifications (follower_id, recipient_id) where follower_id is not null;
-- A user is mentioned once by a post or comment, however often it is edited.
create unique index notifications_mention_key on notifications (recipient_id, post_id, comment_id) nulls not distinct
  where kind = 'mention';
-- A notification's newest actors, read in order and stopped at three however
-- many there are: the recipient (the read policy's column) is in the index, so
-- the scan needs no table row to pass the policy.
create index notification_actors_latest_idx on notification_actors (notification_id, acted_at desc, actor_id desc)
  include (recipient_id);
create index notification_actors_actor_idx on notification_actors (actor_id, liked_post_id);

alter table notifications enable row level security;
alter table notifications force row level security;
alter table notification_actors enable row level security;
alter table notification_actors force row level security;
alter table notification_reads enable row level security;
alter table notification_reads force row level security;

grant select on notifications, notification_actors to chirp_user;
grant select, insert (user_id, read_at, read_id), update (read_at, read_id) on notification_reads to chirp_user;

create policy "recipients read their notifications" on notifications
  for select to chirp_user
  using (recipient_id = (select app.user_id()));
create policy "the notification triggers read any notification" on notifications
  for select to chirp_owner
  using (true);
create policy "the notification triggers notify anyone" on notifications
  for insert to chirp_owner
  with check (true);
create policy "the notification triggers regroup any notification" on notifications
  for update to chirp_owner
  using (true)
  with check (true);
create policy "the notification triggers remove any emptied notification" on notifications
  for delete to chirp_owner
  using (true);

create policy "recipients read who acted on their notifications" on notification_actors
  for select to chirp_user
  using (recipient_id = (select app.user_id()));
create policy "the notification triggers read any actor" on notification_actors
  for select to chirp_owner
  using (true);
create policy "the notification triggers add any actor" on notification_actors
  for insert to chirp_owner
  with check (true);

create policy "users read how far they have read" on notification_reads
  for select to chirp_user
  using (user_id = (select app.user_id()));
create policy "users mark their own notifications read" on notification_reads
  for insert to chirp_user
  with check (user_id = (select app.user_id()));
create policy "users move their own read mark" on notification_reads
  for update to chirp_user
  using (user_id = (select app.user_id()))
  with check (user_id = (select app.user_id()));
create policy "the notification triggers read any read mark" on notification_reads
  for select to chirp_owner
  using (true);

-- The triggers change a notification's group and nothing else of it.
revoke update on notifications from chirp_owner;
grant update (latest_at, actor_count) on notifications to chirp_owner;

-- actor_count counts the actor rows; the last one out takes the notification
-- with it. Updating or deleting a notification a cascade already removed is a
-- no-op.
create function app.notification_actors_keep_count() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  if tg_op = 'INSERT' then
    update notifications set actor_count = actor_count + 1 where id = new.notification_id;
  else
    update notifications set actor_count = actor_count - 1 where id = old.notification_id and actor_count > 1;
    if not found then
      delete from notifications where id = old.notification_id;
    end if;
  end if;
  return null;
end
$$;
revoke execute on function app.notification_actors_keep_count() from public;

create trigger notification_actors_keep_count
  after insert or delete on notification_actors
  for each row execute function app.notification_actors_keep_count();

-- Whether `recipient` has read the notification at (at, id).
create function app.notification_is_read(recipient uuid, at timestamptz, id uuid) returns boolean
  language sql
  stable
  set search_path = pg_catalog, public, pg_temp
as $$
  select exists (select from notification_reads r
                 where r.user_id = recipient and (at, id) <= (r.read_at, r.read_id))
$$;
revoke execute on function app.notification_is_read(uuid, timestamptz, uuid) from public;

-- A like joins its post's newest like group while the author has not read
-- it, and starts a new group otherwise. The like's counter trigger
-- (likes_keep_count, which fires first: triggers fire in name order) has
-- locked the post's row, so likes of one post join their group one at a time.
create function app.likes_notify() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
declare
  recipient uuid;
  newest record;
  group_id uuid;
begin
  select p.author_id into recipient from posts p where p.id = new.post_id;
  if recipient is null or recipient = new.user_id then
    return null;
  end if;
  select n.id, n.latest_at into newest from notifications n
  where n.post_id = new.post_id and n.kind = 'like'
  order by n.latest_at desc
  limit 1;
  if newest.id is not null and not app.notification_is_read(recipient, newest.latest_at, newest.id) then
    group_id := newest.id;
    update notifications set latest_at = greatest(latest_at, new.created_at) where id = group_id;
  else
    insert into notifications (recipient_id, kind, post_id, latest_at)
    values (recipient, 'like', new.post_id, new.created_at)
    returning id into group_id;
  end if;
  insert into notification_actors (notification_id, actor_id, recipient_id, liked_post_id, acted_at)
  values (group_id, new.user_id, recipient, new.post_id, new.created_at)
  on conflict do nothing;
  return null;
end
$$;
revoke execute on function app.likes_notify() from public;

create trigger likes_notify
  after insert on likes
  for each row execute function app.likes_notify();

-- One notification with one actor; nothing when it exists already (a mention
-- named again by an edit). PL/pgSQL, whose statements are planned once per
-- session: a SQL function is planned again on every call.
create function app.notify(
  recipient uuid, actor uuid, kind text, at timestamptz,
  follower uuid default null, post uuid default null, comment uuid default null
) returns void
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
declare
  created uuid;
begin
  insert into notifications (recipient_id, kind, follower_id, post_id, comment_id, latest_at)
  values (recipient, kind, follower, post, comment, at)
  on conflict do nothing
  returning id into created;
  if created is not null then
    insert into notification_actors (notification_id, actor_id, recipient_id, acted_at)
    values (created, actor, recipient, at);
  end if;
end
$$;
revoke execute on function app.notify(uuid, uuid, text, timestamptz, uuid, uuid, uuid) from public;

create function app.follows_notify() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  perform app.notify(new.followee_id, new.follower_id, 'follow', new.created_at, follower => new.follower_id);
  return null;
end
$$;
revoke execute on function app.follows_notify() from public;

create trigger follows_notify
  after insert on follows
  for each row execute function app.follows_notify();

-- The users a text mentions as `@username`: the first ten names, each once,
-- that follow no name character and are followed by none (so no e-mail
-- address), and that name an account other than the author's.
create function app.mentioned_users(body text, author uuid) returns setof uuid
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
$$;
revoke execute on function app.mentioned_users(text, uuid) from public;

-- Mentions in a post, when it is written and when an edit names someone new.
create function app.posts_notify() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  if tg_op = 'UPDATE' and new.body is not distinct from old.body then
    return null;
  end if;
  -- Most texts name nobody: skip the search for names.
  if strpos(new.body, '@') > 0 then
    perform app.notify(m, new.author_id, 'mention', coalesce(new.edited_at, new.created_at), post => new.id)
    from app.mentioned_users(new.body, new.author_id) as m;
  end if;
  return null;
end
$$;
revoke execute on function app.posts_notify() from public;

create trigger posts_notify
  after insert or update of body on posts
  for each row execute function app.posts_notify();

-- A comment tells the post's author (comment) and, for a reply, the parent
-- comment's author (reply, in place of comment when they are the same
-- person), then anyone it mentions who was not told already. Nobody is told
-- of their own comment.
create function app.comments_notify() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
declare
  post_author uuid;
  parent_author uuid;
  at timestamptz := coalesce(new.edited_at, new.created_at);
begin
  if tg_op = 'INSERT' then
    select p.author_id into post_author from posts p where p.id = new.post_id;
    if new.parent_id is not null then
      select c.author_id into parent_author from comments c where c.id = new.parent_id;
      if parent_author <> new.author_id then
        perform app.notify(parent_author, new.author_id, 'reply', at, post => new.post_id, comment => new.id);
      end if;
    end if;
    if post_author <> new.author_id and post_author is distinct from parent_author then
      perform app.notify(post_author, new.author_id, 'comment', at, post => new.post_id, comment => new.id);
    end if;
  elsif new.body is not distinct from old.body then
    return null;
  end if;
  if strpos(new.body, '@') > 0 then
    perform app.notify(m, new.author_id, 'mention', at, post => new.post_id, comment => new.id)
    from app.mentioned_users(new.body, new.author_id) as m
    where not exists (select from notifications n where n.comment_id = new.id and n.recipient_id = m);
  end if;
  return null;
end
$$;
revoke execute on function app.comments_notify() from public;

create trigger comments_notify
  after insert or update of body on comments
  for each row execute function app.comments_notify();

-- Marking read is a write the reader's next request must see on a replica.
create trigger notification_reads_mark_write after insert or update on notification_reads
  for each statement execute function app.mark_write();
