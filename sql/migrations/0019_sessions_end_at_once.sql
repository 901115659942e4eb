-- Sessions that end at once (issue 26). A session is a refresh-token family;
-- it is live while the family holds a live token (neither used nor revoked,
-- not expired): rotation swaps one live token for its successor in one
-- statement, and logout, logout-all, a password change and the reuse of a
-- rotated token revoke the family's live token. Access tokens name their
-- session (`sid`), and every signed-in transaction's prologue calls
-- app.require_session(sid), which fails with SQLSTATE CH002 unless that
-- session is live and the viewer's: the token stops working with the
-- revoking commit, not when it expires, at the cost of one index probe in a
-- round trip the request makes anyway.

set local search_path = public;
set local role chirp_owner;

-- A family's live token, found in one probe however many times it rotated.
create index refresh_tokens_live_family_idx on refresh_tokens (family_id)
  where used_at is null and revoked_at is null;

-- The check runs as chirp_owner (security definer): the request roles get no
-- grant on refresh_tokens, and chirp_owner's one reading policy (the purge's,
-- 0009) now also lets it read the viewer's own tokens, and no one else's.
alter policy "the purge finds expired refresh tokens" on refresh_tokens
  rename to "the purge finds expired tokens, the session check the viewer's";
alter policy "the purge finds expired tokens, the session check the viewer's" on refresh_tokens
  using (expires_at < (select app.expired_before('refresh_tokens')) or user_id = (select app.user_id()));

create function app.require_session(session uuid) returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
begin
  perform from refresh_tokens
  where family_id = session and user_id = app.user_id()
    and used_at is null and revoked_at is null and expires_at > now();
  if not found then
    raise exception 'the session has ended' using errcode = 'CH002';
  end if;
end
$$;

revoke execute on function app.require_session(uuid) from public;
grant execute on function app.require_session(uuid) to chirp_user;
