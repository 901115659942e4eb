-- Read-your-writes from the first request (issue 25): a sign-up is a write too.
-- The account is created by chirp_auth before any app.user_id exists, so 0016's
-- statement triggers mark nothing, and a new user's next request, sent to a
-- replica that has not replayed the sign-up yet, would not find their account.
-- A row trigger on users marks the new account with the sign-up's transaction.

set local search_path = public;
set local role chirp_owner;

-- The account a row trigger is marking: set by app.mark_sign_up() around its
-- insert only, so the policy below admits that one row and nothing else.
create function app.signing_up() returns uuid
  language sql
  stable
  set search_path = pg_catalog, pg_temp
as $$
  select nullif(current_setting('app.signing_up', true), '')::uuid
$$;

-- One insert policy per role: 0016's, widened to the account being signed up.
drop policy "the write triggers record the writer's mark" on write_marks;
create policy "the write triggers record the writer's or a new account's mark" on write_marks
  for insert to chirp_owner
  with check (user_id = (select app.user_id()) or user_id = (select app.signing_up()));

create function app.mark_sign_up() returns trigger
  language plpgsql
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  perform set_config('app.signing_up', new.id::text, true);
  -- A new account has no mark yet (and ON CONFLICT would need a read policy besides).
  insert into write_marks (user_id, xid) values (new.id, pg_current_xact_id());
  perform set_config('app.signing_up', '', true);
  return null;
end
$$;

create trigger users_mark_sign_up after insert on users
  for each row execute function app.mark_sign_up();
