-- Counters kept exact in the writer's own transaction, and the one-level
-- reply rule. The functions run as chirp_owner because app roles may not
-- write counter columns; chirp_owner's policies are in 0004_row_security.sql.
-- Updating a row a cascade already deleted is a no-op, so cascades are safe.

set local search_path = public;
set local role chirp_owner;

-- A reply must answer a top-level comment (the composite key already keeps
-- it on the same post).
create function app.comments_reply_to_top_level() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
declare
  grandparent_id uuid;
begin
  if new.parent_id is not null then
    -- A plain key lookup: a "parent_id is not null" filter here would invite
    -- the planner to scan comments_replies_idx instead.
    select c.parent_id into grandparent_id
    from comments c where c.id = new.parent_id and c.post_id = new.post_id;
    if grandparent_id is not null then
      raise exception 'a reply must answer a top-level comment'
        using errcode = 'check_violation', schema = 'public', table = 'comments',
              column = 'parent_id', constraint = 'comments_reply_to_top_level';
    end if;
    if tg_op = 'UPDATE' then
      if exists (select 1 from comments where parent_id = new.id) then
        raise exception 'a comment with replies cannot become a reply'
          using errcode = 'check_violation', schema = 'public', table = 'comments',
                column = 'parent_id', constraint = 'comments_reply_to_top_level';
      end if;
    end if;
  end if;
  return new;
end
$$;

create trigger comments_reply_to_top_level
  before insert or update of parent_id on comments
  for each row execute function app.comments_reply_to_top_level();

create function app.likes_keep_count() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
begin
  if tg_op = 'INSERT' then
    update posts set like_count = like_count + 1 where id = new.post_id;
  else
    update posts set like_count = like_count - 1 where id = old.post_id;
  end if;
  return null;
end
$$;

create trigger likes_keep_count
  after insert or delete on likes
  for each row execute function app.likes_keep_count();

-- comment_count counts every comment of a post, replies included.
-- Locks the post before the parent comment, in every path.
create function app.comments_keep_count() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
begin
  if tg_op = 'INSERT' then
    update posts set comment_count = comment_count + 1 where id = new.post_id;
    if new.parent_id is not null then
      update comments set reply_count = reply_count + 1 where id = new.parent_id;
    end if;
  else
    update posts set comment_count = comment_count - 1 where id = old.post_id;
    if old.parent_id is not null then
      update comments set reply_count = reply_count - 1 where id = old.parent_id;
    end if;
  end if;
  return null;
end
$$;

create trigger comments_keep_count
  after insert or delete on comments
  for each row execute function app.comments_keep_count();

create function app.follows_keep_count() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
declare
  delta    integer;
  follower uuid;
  followee uuid;
begin
  if tg_op = 'INSERT' then
    delta := 1; follower := new.follower_id; followee := new.followee_id;
  else
    delta := -1; follower := old.follower_id; followee := old.followee_id;
  end if;
  -- Lock the two users in id order, so A follows B while B follows A
  -- cannot deadlock.
  if follower < followee then
    update users set following_count = following_count + delta where id = follower;
    update users set follower_count = follower_count + delta where id = followee;
  else
    update users set follower_count = follower_count + delta where id = followee;
    update users set following_count = following_count + delta where id = follower;
  end if;
  return null;
end
$$;

create trigger follows_keep_count
  after insert or delete on follows
  for each row execute function app.follows_keep_count();

create function app.posts_keep_count() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
begin
  if tg_op = 'INSERT' then
    update users set post_count = post_count + 1 where id = new.author_id;
  else
    update users set post_count = post_count - 1 where id = old.author_id;
  end if;
  return null;
end
$$;

create trigger posts_keep_count
  after insert or delete on posts
  for each row execute function app.posts_keep_count();
