-- Logins count failures, not successes (issue 26): each attempt is counted
-- against the username's failure budgets first, so that concurrent attempts
-- cannot all pass a nearly spent one, and a login that succeeds takes its
-- count back (`RateLimitCheck.refund`). A window's counter can so return to
-- zero.

set local search_path = public;
set local role chirp_owner;

alter table rate_limit_hits drop constraint rate_limit_hits_hits_positive;
alter table rate_limit_hits add constraint rate_limit_hits_hits_not_negative check (hits >= 0);
