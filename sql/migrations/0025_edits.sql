-- Posts and comments can be edited by their author (issue 27): the body only,
-- and the database stamps when. An app role may update nothing but `body`, and
-- only of its own rows (a policy, as for delete); `edited_at` is set by a
-- trigger when the body changes, so no caller can forge or clear it. The
-- search vector follows the body (a generated column), and an edit is a write
-- the author's next read must see on a replica, as creates are (0016).

set local search_path = public;
set local role chirp_owner;

alter table posts add column edited_at timestamptz;
alter table comments add column edited_at timestamptz;

grant update (body) on posts, comments to chirp_user;

create policy "authors edit their own posts" on posts
  for update to chirp_user
  using (author_id = (select app.user_id()))
  with check (author_id = (select app.user_id()));
create policy "authors edit their own comments" on comments
  for update to chirp_user
  using (author_id = (select app.user_id()))
  with check (author_id = (select app.user_id()));

create function app.stamp_edit() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  if new.body is distinct from old.body then
    new.edited_at := now();
  end if;
  return new;
end
$$;
revoke execute on function app.stamp_edit() from public;

create trigger posts_stamp_edit before update of body on posts
  for each row execute function app.stamp_edit();
create trigger comments_stamp_edit before update of body on comments
  for each row execute function app.stamp_edit();

create trigger posts_mark_edit after update of body on posts
  for each statement execute function app.mark_write();
create trigger comments_mark_edit after update of body on comments
  for each statement execute function app.mark_write();
