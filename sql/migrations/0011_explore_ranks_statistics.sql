-- Explore's pages read a snapshot's ranks in order off explore_ranks_pkey
-- (snapshot_id, rank): one range scan, stopped after a page. The planner picks
-- that scan only when it expects a snapshot to hold many rows. Until
-- explore_ranks has been analyzed with rows in it, it has no statistics and
-- guesses 0.5% of the table per snapshot: with the first few snapshots, a
-- handful of rows. It then prefers a bitmap scan of the whole snapshot, a
-- thousand lookups of posts and authors, and a top-N sort, for twenty rows.
-- That is the state of every new database (seeding analyzes explore_ranks
-- while it is empty), and autovacuum takes a minute or more to analyze it.
-- So ranking a snapshot into a table the planner believes empty analyzes it
-- at once; from then on autovacuum keeps the statistics current.

set local search_path = public;
set local role chirp_owner;

-- pg_class.reltuples is -1 before the first ANALYZE and 0 after one that found
-- the table empty; either way the planner has no statistics for its columns
-- (pg_stats would say so directly, but hides tables with row security).
create function app.explore_ranks_analyzed_when_new() returns trigger
  language plpgsql
  security definer
  set search_path = public, pg_temp
as $$
begin
  if (select reltuples from pg_class where oid = 'explore_ranks'::regclass) <= 0 then
    analyze explore_ranks;
  end if;
  return null;
end
$$;

create trigger explore_ranks_analyzed_when_new
  after insert on explore_ranks
  for each statement execute function app.explore_ranks_analyzed_when_new();
