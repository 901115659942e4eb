-- Read-your-writes across streaming replicas (issue 25).
--
-- Reads that can tolerate replication lag go to a replica. A signed-in user's
-- reads must still see that user's own writes, through any instance, while
-- replicas lag. So every statement of a signed-in user that writes posts,
-- likes, comments, follows or a profile records its transaction's id in the
-- user's row of write_marks (the triggers below), in the transaction itself:
-- the mark commits exactly when the write does, whatever route wrote it.
-- Before reading on a replica for a user, the service reads the user's mark on
-- the primary, and the replica transaction's first statement calls
-- app.require_visible(mark): it fails (SQLSTATE CH001) unless that transaction
-- is visible in the statement's snapshot, that is, unless the replica has
-- replayed the write's commit. Every later statement of a READ COMMITTED
-- transaction takes a newer snapshot, so it sees the write too; on CH001 the
-- service reads on the primary instead. Transaction ids are the same on a
-- physical replica as on its primary, so the test is exact: no clock, no LSN
-- arithmetic.
--
-- One row per user who has written, replaced in place; a user's concurrent
-- writes take turns on it, as they already do on their users row's counters.
-- Writes without a user (the seed, housekeeping, explore's ranking) mark
-- nothing.

set local search_path = public;
set local role chirp_owner;

create table write_marks (
  user_id uuid primary key references users (id) on delete cascade,
  xid xid8 not null
);

alter table write_marks enable row level security;
alter table write_marks force row level security;

grant select on write_marks to chirp_user;
-- The triggers move a mark; nothing changes whose it is.
revoke update on write_marks from chirp_owner;
grant update (xid) on write_marks to chirp_owner;

create policy "users read their own write mark" on write_marks
  for select to chirp_user
  using (user_id = (select app.user_id()));
create policy "the write triggers read the writer's mark" on write_marks
  for select to chirp_owner
  using (user_id = (select app.user_id()));
create policy "the write triggers record the writer's mark" on write_marks
  for insert to chirp_owner
  with check (user_id = (select app.user_id()));
create policy "the write triggers move the writer's mark" on write_marks
  for update to chirp_owner
  using (user_id = (select app.user_id()))
  with check (user_id = (select app.user_id()));

-- After each writing statement of a signed-in user. Security definer: the
-- counter triggers write users as chirp_owner, and the app roles get no
-- write grant on write_marks.
create function app.mark_write() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  -- A statement trigger fires even when no row changed: a token whose account is gone
  -- (its update matched nothing) has no users row to hang a mark on.
  insert into write_marks (user_id, xid)
  select u.id, pg_current_xact_id() from users u where u.id = app.user_id()
  on conflict (user_id) do update set xid = excluded.xid where write_marks.xid <> excluded.xid;
  return null;
end
$$;

create trigger posts_mark_write after insert or delete on posts
  for each statement execute function app.mark_write();
create trigger likes_mark_write after insert or delete on likes
  for each statement execute function app.mark_write();
create trigger comments_mark_write after insert or delete on comments
  for each statement execute function app.mark_write();
create trigger follows_mark_write after insert or delete on follows
  for each statement execute function app.mark_write();
create trigger users_mark_write after update on users
  for each statement execute function app.mark_write();

-- On a replica, before a signed-in user's reads: fails unless transaction
-- `mark` is visible to the calling statement (a mark from the future, which a
-- replica cannot have replayed, is not visible either).
create function app.require_visible(mark xid8) returns void
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
as $$
begin
  if mark is not null and not pg_visible_in_snapshot(mark, pg_current_snapshot()) then
    raise exception 'this replica has not replayed transaction % yet', mark
      using errcode = 'CH001';
  end if;
end
$$;

grant execute on function app.require_visible(xid8) to chirp_user;
