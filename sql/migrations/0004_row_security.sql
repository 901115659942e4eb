-- Who may do what. FORCE makes chirp_owner obey the policies too, so the
-- counter triggers get their own narrow policies. One policy per command per
-- role set; "me" is (select app.user_id()), evaluated once per statement.
-- Column grants keep ids, timestamps and counters out of the app roles' reach.

set local search_path = public;
set local role chirp_owner;

alter table users enable row level security;
alter table users force row level security;
alter table credentials enable row level security;
alter table credentials force row level security;
alter table posts enable row level security;
alter table posts force row level security;
alter table likes enable row level security;
alter table likes force row level security;
alter table comments enable row level security;
alter table comments force row level security;
alter table follows enable row level security;
alter table follows force row level security;
alter table refresh_tokens enable row level security;
alter table refresh_tokens force row level security;
alter table idempotency_keys enable row level security;
alter table idempotency_keys force row level security;

-- users: public profiles; created by the auth service, edited by their owner.
grant select on users to chirp_user, chirp_anon, chirp_auth;
grant insert (username, display_name) on users to chirp_auth;
grant update (display_name, bio) on users to chirp_user;

create policy "anyone can read profiles" on users
  for select to chirp_user, chirp_anon, chirp_auth, chirp_owner
  using (true);
create policy "the auth service creates users" on users
  for insert to chirp_auth
  with check (true);
create policy "users update their own profile" on users
  for update to chirp_user
  using (id = (select app.user_id()))
  with check (id = (select app.user_id()));
create policy "triggers keep profile counters exact" on users
  for update to chirp_owner
  using (true)
  with check (true);

-- credentials: the auth service only; user roles get no grant at all.
grant select, insert (user_id, password_hash), update (password_hash, updated_at)
  on credentials to chirp_auth;

create policy "the auth service reads credentials" on credentials
  for select to chirp_auth
  using (true);
create policy "the auth service stores credentials" on credentials
  for insert to chirp_auth
  with check (true);
create policy "the auth service changes passwords" on credentials
  for update to chirp_auth
  using (true)
  with check (true);

-- posts: created and deleted by their author; never updated by app roles.
grant select on posts to chirp_user, chirp_anon, chirp_auth;
grant insert (author_id, body), delete on posts to chirp_user;

create policy "anyone can read posts" on posts
  for select to chirp_user, chirp_anon, chirp_auth, chirp_owner
  using (true);
create policy "users create their own posts" on posts
  for insert to chirp_user
  with check (author_id = (select app.user_id()));
create policy "authors delete their own posts" on posts
  for delete to chirp_user
  using (author_id = (select app.user_id()));
create policy "triggers keep post counters exact" on posts
  for update to chirp_owner
  using (true)
  with check (true);

-- likes
grant select on likes to chirp_user, chirp_anon, chirp_auth;
grant insert (user_id, post_id), delete on likes to chirp_user;

create policy "anyone can read likes" on likes
  for select to chirp_user, chirp_anon, chirp_auth
  using (true);
create policy "users like as themselves" on likes
  for insert to chirp_user
  with check (user_id = (select app.user_id()));
create policy "users remove their own likes" on likes
  for delete to chirp_user
  using (user_id = (select app.user_id()));

-- comments: deleted by their author or by the author of the post.
grant select on comments to chirp_user, chirp_anon, chirp_auth;
grant insert (post_id, parent_id, author_id, body), delete on comments to chirp_user;

create policy "anyone can read comments" on comments
  for select to chirp_user, chirp_anon, chirp_auth, chirp_owner
  using (true);
create policy "users comment as themselves" on comments
  for insert to chirp_user
  with check (author_id = (select app.user_id()));
create policy "comment authors and post authors delete comments" on comments
  for delete to chirp_user
  using (
    author_id = (select app.user_id())
    or exists (select 1 from posts p
               where p.id = post_id and p.author_id = (select app.user_id()))
  );
create policy "triggers keep reply counters exact" on comments
  for update to chirp_owner
  using (true)
  with check (true);

-- follows
grant select on follows to chirp_user, chirp_anon, chirp_auth;
grant insert (follower_id, followee_id), delete on follows to chirp_user;

create policy "anyone can read follows" on follows
  for select to chirp_user, chirp_anon, chirp_auth
  using (true);
create policy "users follow as themselves" on follows
  for insert to chirp_user
  with check (follower_id = (select app.user_id()));
create policy "users unfollow as themselves" on follows
  for delete to chirp_user
  using (follower_id = (select app.user_id()));

-- refresh_tokens: the auth service only. Rows are revoked, not deleted,
-- except by app.purge_expired().
grant select, insert (user_id, family_id, token_hash, expires_at), update (used_at, revoked_at)
  on refresh_tokens to chirp_auth;

create policy "the auth service reads refresh tokens" on refresh_tokens
  for select to chirp_auth
  using (true);
create policy "the auth service issues refresh tokens" on refresh_tokens
  for insert to chirp_auth
  with check (true);
create policy "the auth service uses and revokes refresh tokens" on refresh_tokens
  for update to chirp_auth
  using (true)
  with check (true);
create policy "the purge finds expired refresh tokens" on refresh_tokens
  for select to chirp_owner
  using (expires_at < now());
create policy "the purge removes expired refresh tokens" on refresh_tokens
  for delete to chirp_owner
  using (expires_at < now());

-- idempotency_keys: signed-in callers see their own keys; anonymous callers
-- (and the auth service, so a sign-up and its key commit together) share the
-- 'anon:' keys, which the service derives from the caller.
-- created_at is updatable so an expired key can be reclaimed in place.
grant select,
      insert (owner_key, idempotency_key, request_hash, status_code, response_body),
      update (request_hash, status_code, response_body, created_at)
  on idempotency_keys to chirp_user, chirp_anon, chirp_auth;

create policy "users read their own idempotency keys" on idempotency_keys
  for select to chirp_user
  using (owner_key = (select app.user_id()::text));
create policy "users record their own idempotency keys" on idempotency_keys
  for insert to chirp_user
  with check (owner_key = (select app.user_id()::text));
create policy "users complete their own idempotency keys" on idempotency_keys
  for update to chirp_user
  using (owner_key = (select app.user_id()::text))
  with check (owner_key = (select app.user_id()::text));
create policy "anonymous callers read anonymous idempotency keys" on idempotency_keys
  for select to chirp_anon, chirp_auth
  using (starts_with(owner_key, 'anon:'));
create policy "anonymous callers record anonymous idempotency keys" on idempotency_keys
  for insert to chirp_anon, chirp_auth
  with check (starts_with(owner_key, 'anon:'));
create policy "anonymous callers complete anonymous idempotency keys" on idempotency_keys
  for update to chirp_anon, chirp_auth
  using (starts_with(owner_key, 'anon:'))
  with check (starts_with(owner_key, 'anon:'));
-- Keys are replayed for 24 hours; only older ones can be purged.
create policy "the purge finds expired idempotency keys" on idempotency_keys
  for select to chirp_owner
  using (created_at < now() - interval '24 hours');
create policy "the purge removes expired idempotency keys" on idempotency_keys
  for delete to chirp_owner
  using (created_at < now() - interval '24 hours');

-- Bounded housekeeping the service runs now and then (as chirp_auth): deletes
-- up to batch_size expired refresh tokens and idempotency keys, returns how
-- many rows went. The policies above decide what "expired" means.
create function app.purge_expired(batch_size integer default 1000) returns integer
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
declare
  tokens integer;
  keys   integer;
begin
  delete from refresh_tokens
  where id in (select id from refresh_tokens where expires_at < now()
               order by expires_at limit batch_size);
  get diagnostics tokens = row_count;
  delete from idempotency_keys
  where (owner_key, idempotency_key) in (
    select owner_key, idempotency_key from idempotency_keys
    where created_at < now() - interval '24 hours'
    order by created_at limit batch_size);
  get diagnostics keys = row_count;
  return tokens + keys;
end
$$;

grant execute on function app.purge_expired(integer) to chirp_auth;
