-- Write marks only where replicas read (issue 25). Recording a mark is a row
-- update in every write's transaction: pgbench liking and unliking (64 users,
-- four clients) ran at 0.55-0.62 of the rate without it. A deployment without
-- replicas reads nothing from the marks, so the service asks for them only
-- when it has replicas, by setting app.read_your_writes in the transaction
-- (`Services.writer`); the trigger returns at once otherwise. Sign-up marks
-- (0017) stay: a sign-up is rare.

set local search_path = public;
set local role chirp_owner;

create or replace function app.mark_write() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  if current_setting('app.read_your_writes', true) is distinct from 'on' then
    return null;
  end if;
  -- A statement trigger fires even when no row changed: a token whose account is gone
  -- (its update matched nothing) has no users row to hang a mark on.
  insert into write_marks (user_id, xid)
  select u.id, pg_current_xact_id() from users u where u.id = app.user_id()
  on conflict (user_id) do update set xid = excluded.xid where write_marks.xid <> excluded.xid;
  return null;
end
$$;
