-- Attempt counters for sign-up, login and refresh, per client address and per
-- username, in fixed windows. They live here, not in the service, so every
-- instance behind a load balancer counts against the same budget.

set local search_path = public;
set local role chirp_owner;

create table rate_limit_hits (
  bucket       text not null,
  window_start timestamptz not null,
  hits         integer not null default 1,
  primary key (bucket, window_start),
  constraint rate_limit_hits_bucket_length check (char_length(bucket) between 1 and 200),
  constraint rate_limit_hits_hits_positive check (hits > 0)
);

-- The purge walks old windows in order.
create index rate_limit_hits_window_start_idx on rate_limit_hits (window_start);

alter table rate_limit_hits enable row level security;
alter table rate_limit_hits force row level security;

grant select, insert (bucket, window_start, hits), update (hits), delete on rate_limit_hits to chirp_auth;

create policy "the auth service reads attempt counters" on rate_limit_hits
  for select to chirp_auth
  using (true);
create policy "the auth service counts attempts" on rate_limit_hits
  for insert to chirp_auth
  with check (hits = 1);
create policy "the auth service increments attempt counters" on rate_limit_hits
  for update to chirp_auth
  using (true)
  with check (true);
create policy "the auth service forgets windows older than a day" on rate_limit_hits
  for delete to chirp_auth
  using (window_start < now() - interval '1 day');
