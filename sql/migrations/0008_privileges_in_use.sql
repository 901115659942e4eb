-- Each role keeps the privileges and policies that something really uses, and a
-- policy's name says what it lets through.

set local search_path = public;
set local role chirp_owner;

-- The counter triggers (0003) run as chirp_owner, whose update policies on users,
-- posts and comments admit every row: a policy picks rows, never columns. So
-- chirp_owner gives up UPDATE on those tables except for the counter columns,
-- and the only thing it can change in them is a counter. (A table owner may
-- limit its own privileges. UPDATE on some column must stay in any case: the
-- row locks that foreign-key checks take need it.)
revoke update on users, posts, comments from chirp_owner;
grant update (follower_count, following_count, post_count) on users to chirp_owner;
grant update (like_count, comment_count) on posts to chirp_owner;
grant update (reply_count) on comments to chirp_owner;

alter policy "triggers keep profile counters exact" on users
  rename to "the counter triggers update any user's counters";
alter policy "triggers keep post counters exact" on posts
  rename to "the counter triggers update any post's counters";
alter policy "triggers keep reply counters exact" on comments
  rename to "the counter triggers update any comment's reply count";

-- Anonymous callers create nothing: a sign-up claims its idempotency key as the
-- auth service, in the sign-up's own transaction.
revoke all on idempotency_keys from chirp_anon;
alter policy "anonymous callers read anonymous idempotency keys" on idempotency_keys to chirp_auth;
alter policy "anonymous callers read anonymous idempotency keys" on idempotency_keys
  rename to "the auth service reads anonymous idempotency keys";
alter policy "anonymous callers record anonymous idempotency keys" on idempotency_keys to chirp_auth;
alter policy "anonymous callers record anonymous idempotency keys" on idempotency_keys
  rename to "the auth service records anonymous idempotency keys";
alter policy "anonymous callers complete anonymous idempotency keys" on idempotency_keys to chirp_auth;
alter policy "anonymous callers complete anonymous idempotency keys" on idempotency_keys
  rename to "the auth service completes anonymous idempotency keys";

-- A claim inserts the key and the request's hash; the response arrives by update.
revoke insert (status_code, response_body) on idempotency_keys from chirp_user, chirp_auth;

-- The auth service reads profiles (and whether the caller follows them), never
-- posts, likes or comments.
revoke select on posts, likes, comments from chirp_auth;
alter policy "anyone can read posts" on posts to chirp_user, chirp_anon, chirp_owner;
alter policy "anyone can read likes" on likes to chirp_user, chirp_anon;
alter policy "anyone can read comments" on comments to chirp_user, chirp_anon, chirp_owner;

-- The ranking job writes ranks without reading them back; the cascade from an
-- expired snapshot runs as the owner and is not subject to row security.
alter policy "anyone can read explore ranks" on explore_ranks to chirp_user, chirp_anon;

reset role;

-- The login role needs nothing in schema app: every statement that names it is
-- parsed after the transaction has switched to a request role, which has USAGE.
revoke usage on schema app from chirp_service;
