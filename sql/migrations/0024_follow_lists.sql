-- A user's followers and the accounts they follow, newest follow first (issue
-- 27): each list is one range scan of an index in the list's order (the other
-- user's id breaks ties, as in the cursor), whatever its depth. The viewer's
-- followedByMe probe stays on the primary key: through these indexes it would
-- read every follow of the user, and the planner, seeing that many follows per
-- user, prices it so (sql/tests/80_keyset_plans.sql checks both).

set local search_path = public;
set local role chirp_owner;

create index follows_followee_created_at_idx on follows (followee_id, created_at desc, follower_id desc);
create index follows_follower_created_at_idx on follows (follower_id, created_at desc, followee_id desc);
