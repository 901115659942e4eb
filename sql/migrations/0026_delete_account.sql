-- An account can be deleted by its owner (issue 27), and by nobody else: no
-- app role deletes users (sql/tests/00_structure.sql), so deleting goes
-- through one narrow function, callable by the sign-in role only (the service
-- checks the password there first), which deletes nothing unless the caller's
-- session is live. The user's rows go with the users row (every foreign key to
-- users cascades), and each cascaded like, follow and comment passes through
-- its counter trigger, so every counter the user touched stays exact. Their
-- posts are deleted first, while their follows still say whose home timelines
-- hold them (the post trigger removes the rows through them); the user's own
-- home timeline, which has no foreign key, is cleared here too.

set local search_path = public;
set local role chirp_owner;

create policy "accounts are deleted through app.delete_account" on users
  for delete to chirp_owner
  using (true);
create policy "a deleted account's posts go through app.delete_account" on posts
  for delete to chirp_owner
  using (true);

create function app.delete_account(viewer uuid, session uuid) returns boolean
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  -- The session check's policy shows the owner a viewer's own tokens (0019).
  perform set_config('app.user_id', viewer::text, true);
  if not exists (select from refresh_tokens t
                 where t.family_id = session and t.user_id = viewer
                   and t.used_at is null and t.revoked_at is null and t.expires_at > now()) then
    return false;
  end if;
  delete from posts where author_id = viewer;
  delete from home_timeline where user_id = viewer;
  delete from users where id = viewer;
  return found;
end
$$;
revoke execute on function app.delete_account(uuid, uuid) from public;
grant execute on function app.delete_account(uuid, uuid) to chirp_signin;
