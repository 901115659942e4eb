-- Tables, constraints and indexes. Privileges and policies come in
-- 0004_row_security.sql; until then the app roles can touch nothing here.

set local search_path = public;

-- pg_trgm is a trusted extension: a database owner may create it.
create extension if not exists pg_trgm;

grant usage, create on schema public to chirp_owner;
grant usage on schema public to chirp_user, chirp_anon, chirp_auth;
create schema app authorization chirp_owner;

set local role chirp_owner;

grant usage on schema app to chirp_user, chirp_anon, chirp_auth;

-- chirp_owner's functions run only for roles granted EXECUTE on each.
alter default privileges for role chirp_owner revoke execute on functions from public;

-- The signed-in user of the current request, or null. Policies call it as
-- (select app.user_id()) so it is evaluated once per statement.
create function app.user_id() returns uuid
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select nullif(current_setting('app.user_id', true), '')::uuid
$$;

grant execute on function app.user_id() to chirp_user, chirp_anon, chirp_auth;

create table users (
  id              uuid primary key default gen_random_uuid(),
  username        text not null,
  display_name    text not null default '',
  bio             text not null default '',
  created_at      timestamptz not null default now(),
  follower_count  integer not null default 0,
  following_count integer not null default 0,
  post_count      integer not null default 0,
  -- The service lowercases, so a plain unique constraint is case-insensitive.
  constraint users_username_key unique (username),
  constraint users_username_format check (username ~ '^[a-z0-9_]{3,30}$'),
  constraint users_display_name_length check (char_length(display_name) <= 50),
  constraint users_bio_length check (char_length(bio) <= 300),
  constraint users_follower_count_nonnegative check (follower_count >= 0),
  constraint users_following_count_nonnegative check (following_count >= 0),
  constraint users_post_count_nonnegative check (post_count >= 0)
);

-- Search by prefix or similarity; pg_trgm also serves ILIKE.
create index users_username_trgm_idx on users using gin (username gin_trgm_ops);
create index users_display_name_trgm_idx on users using gin (display_name gin_trgm_ops);

create table credentials (
  user_id       uuid primary key references users on delete cascade,
  password_hash text not null,
  updated_at    timestamptz not null default now()
);

create table posts (
  id            uuid primary key default gen_random_uuid(),
  author_id     uuid not null references users on delete cascade,
  body          text not null,
  created_at    timestamptz not null default now(),
  like_count    integer not null default 0,
  comment_count integer not null default 0,
  constraint posts_body_length check (char_length(body) between 1 and 500),
  constraint posts_like_count_nonnegative check (like_count >= 0),
  constraint posts_comment_count_nonnegative check (comment_count >= 0)
);

-- Global timeline, a user's posts, explore: each page is one range scan.
create index posts_created_at_id_idx on posts (created_at desc, id desc);
create index posts_author_created_at_id_idx on posts (author_id, created_at desc, id desc);
create index posts_like_count_id_idx on posts (like_count desc, id desc);
-- Full-text search: queries must repeat this exact expression,
-- to_tsvector('simple', body) @@ websearch_to_tsquery('simple', $1).
-- An expression index keeps the row free of a derived column.
create index posts_body_fts_idx on posts using gin (to_tsvector('simple', body));

create table likes (
  user_id    uuid not null references users on delete cascade,
  post_id    uuid not null references posts on delete cascade,
  created_at timestamptz not null default now(),
  primary key (user_id, post_id)
);

-- Likers of a post, newest first; also serves the cascade from posts.
create index likes_post_created_at_user_idx on likes (post_id, created_at desc, user_id desc);

create table comments (
  id          uuid primary key default gen_random_uuid(),
  post_id     uuid not null references posts on delete cascade,
  parent_id   uuid,
  author_id   uuid not null references users on delete cascade,
  body        text not null,
  created_at  timestamptz not null default now(),
  reply_count integer not null default 0,
  -- Target of the parent key below. Leading with post_id lets it also serve the
  -- cascade from posts and the post lookup of the delete policy.
  constraint comments_post_id_id_key unique (post_id, id),
  -- A reply belongs to the same post as its parent.
  constraint comments_parent_same_post_fkey foreign key (parent_id, post_id)
    references comments (id, post_id) on delete cascade,
  constraint comments_not_own_parent check (parent_id <> id),
  constraint comments_body_length check (char_length(body) between 1 and 2000),
  constraint comments_reply_count_nonnegative check (reply_count >= 0)
);

-- Top-level thread and replies, oldest first.
create index comments_top_level_idx on comments (post_id, created_at, id) where parent_id is null;
create index comments_replies_idx on comments (parent_id, created_at, id) where parent_id is not null;
create index comments_author_id_idx on comments (author_id);

create table follows (
  follower_id uuid not null references users on delete cascade,
  followee_id uuid not null references users on delete cascade,
  created_at  timestamptz not null default now(),
  primary key (follower_id, followee_id),
  constraint follows_not_self check (follower_id <> followee_id)
);

create index follows_followee_follower_idx on follows (followee_id, follower_id);

-- Single-use rotation: using a token sets used_at and inserts its successor
-- in the same family; presenting a used token revokes the whole family.
create table refresh_tokens (
  id         uuid primary key default gen_random_uuid(),
  user_id    uuid not null references users on delete cascade,
  family_id  uuid not null,
  token_hash bytea not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at    timestamptz,
  revoked_at timestamptz,
  constraint refresh_tokens_token_hash_key unique (token_hash)
);

create index refresh_tokens_user_id_idx on refresh_tokens (user_id);
create index refresh_tokens_family_id_idx on refresh_tokens (family_id);
create index refresh_tokens_expires_at_idx on refresh_tokens (expires_at);

-- Replays of POST creates. owner_key is the user id as text for signed-in
-- callers, or 'anon:' followed by a service-computed key for anonymous ones.
create table idempotency_keys (
  owner_key       text not null,
  idempotency_key text not null,
  request_hash    bytea not null,
  status_code     integer,
  response_body   bytea,
  created_at      timestamptz not null default now(),
  primary key (owner_key, idempotency_key),
  constraint idempotency_keys_key_length check (char_length(idempotency_key) between 1 and 255),
  constraint idempotency_keys_status_code_range check (status_code between 100 and 599)
);

create index idempotency_keys_created_at_idx on idempotency_keys (created_at);
