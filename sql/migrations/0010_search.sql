-- Search over a stored tsvector, and the planner's estimate of a search's matches.
--
-- The column is what posts_body_fts_idx indexed (to_tsvector('simple', body)),
-- now stored: a filter over it reads a value instead of parsing the body again
-- (three quarters of the time of a scan in timeline order went to parsing:
-- 230 ms for 125,000 posts, 55 ms over the column). Adding a stored
-- generated column rewrites the table under an ACCESS EXCLUSIVE lock: posts can
-- be neither read nor written until the migration commits (about 20 s for 1.1M
-- posts on the benchmark machine, plus 5 s for the index). It is a one-time cost;
-- run it when a pause in writes is acceptable.

set local search_path = public;
set local role chirp_owner;

alter table posts
  add column search_vector tsvector generated always as (to_tsvector('simple', body)) stored;

-- fastupdate = off: with a pending list every search also reads the list
-- linearly (0.7 ms more for a word nobody used, with 8,000 pending entries; up
-- to 4 MB of them by default), while a write inserts into the index at once
-- instead, which measured no slower for posts and likes (each like writes a new
-- row version, so it inserts into every index of posts).
create index posts_search_vector_idx on posts using gin (search_vector) with (fastupdate = off);

-- Nothing else reads the expression index.
drop index posts_body_fts_idx;

-- The planner's estimate of how many rows a statement returns: EXPLAIN's row
-- count for its top node, with the arguments bound as $1, a text array (so that
-- one function serves every statement; the statement's casts of $1[n] fold into
-- constants before planning, so the estimate is the one for these values). A
-- plan, never a scan: for a search, the statistics of search_vector give exact
-- frequencies for common words and a small floor for the rest. Runs as the
-- caller, whose row-level security is part of the estimate, and plans only what
-- the caller could run itself. Volatile only because EXPLAIN may not run inside
-- a stable function; it reads no rows.
create function app.planned_rows(statement text, arguments text[]) returns bigint
  language plpgsql
  volatile
  set search_path = public, pg_temp
as $$
declare
  plan json;
begin
  execute 'explain (format json) ' || statement into plan using arguments;
  return (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
end
$$;

grant execute on function app.planned_rows(text, text[]) to chirp_user, chirp_anon;

-- The search statements choose their shape by the estimate: gather its
-- statistics now rather than at autovacuum's next visit.
analyze posts;
