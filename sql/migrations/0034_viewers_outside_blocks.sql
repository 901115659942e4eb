-- A signed-in user in no block reads posts and comments through policies with
-- no block check at all (issue 24).
--
-- The read policies of chirp_user on posts and comments (0028) test
-- app.in_any_block first, so a user in no block runs none of their block
-- probes; but PostgreSQL starts every subplan of a statement when it starts
-- the statement, whether it runs then or not. Each statement reading posts or
-- comments as chirp_user started the policy's two block probes and their six
-- InitPlans: about 100,000 instructions of a home feed page's 2,120,000 for
-- the median follower (callgrind, the service's statements through pgbench,
-- 1M-post data, 2026-12-04), and as much on every signed-in read of a
-- timeline, a profile's posts, a comment thread or a search.
--
-- chirp_user_outside_blocks is chirp_user for a user in no block. It is a
-- member of chirp_user, so it holds every privilege and is under every policy
-- of chirp_user, and the permissive read policies of posts and comments that
-- admit every row name it too; PostgreSQL combines permissive policies with
-- OR, and an OR with a true arm is folded to true when the statement is
-- planned, so its reads carry no condition. Only the session check moves a
-- transaction to it: app.require_session, having found the session live and
-- whether its user is in any block (0028), now returns the role the
-- transaction continues as, and the statement that checks switches to it.
-- Every other way into chirp_user (a replica's read, which does not check the
-- session there; a test acting as a user) keeps the block checks, as before.
-- The role holds for the transaction, as app.in_any_block does: a block made
-- after the check applies from the viewer's next request.

create or replace function pg_temp.ensure_role(name text, options text) returns void
  language plpgsql
as $$
begin
  if not exists (select from pg_roles where rolname = name) then
    execute format('create role %I %s', name, options);
  end if;
exception
  when duplicate_object or unique_violation or internal_error then
    null;
end
$$;

create or replace function pg_temp.ensure_member(granted text, grantee text) returns void
  language plpgsql
as $$
begin
  if not pg_has_role(grantee, granted, 'member') then
    execute format('grant %I to %I', granted, grantee);
  end if;
exception
  when unique_violation or internal_error then
    if not pg_has_role(grantee, granted, 'member') then
      raise;
    end if;
end
$$;

select pg_temp.ensure_role('chirp_user_outside_blocks', 'nologin inherit nosuperuser nocreatedb nocreaterole noreplication nobypassrls');
select pg_temp.ensure_member('chirp_user', 'chirp_user_outside_blocks');
select pg_temp.ensure_member('chirp_user_outside_blocks', 'chirp_service');

do $$
begin
  if exists (select from pg_roles where rolname = 'chirp_user_outside_blocks'
             and (rolsuper or rolbypassrls or rolcreaterole or rolcreatedb or rolreplication or rolcanlogin or not rolinherit)) then
    raise exception 'the existing role chirp_user_outside_blocks has unsafe attributes'
      using errcode = 'invalid_role_specification',
            hint = 'it must be an INHERIT role without login that is not superuser, bypasses no RLS and creates no roles or databases';
  end if;
  if exists (select from pg_auth_members m where m.member = 'chirp_user_outside_blocks'::regrole
             and m.roleid <> 'chirp_user'::regrole) then
    raise exception 'chirp_user_outside_blocks may be a member of chirp_user and nothing else'
      using errcode = 'invalid_role_specification';
  end if;
end
$$;

set local search_path = public;
set local role chirp_owner;

alter policy "anyone can read posts" on posts to chirp_anon, chirp_owner, chirp_user_outside_blocks;
alter policy "anyone can read comments" on comments to chirp_anon, chirp_owner, chirp_user_outside_blocks;

-- 0032's session check, returning the role to continue as. Its return type
-- changes, so it is created again (and granted again).
drop function app.require_session(uuid);
create function app.require_session(session uuid) returns text
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, public, pg_temp
as $$
declare
  in_any_block text;
begin
  select set_config('app.in_any_block',
           case when exists (select from blocks b where b.blocker_id = t.user_id)
                  or exists (select from blocks b where b.blocked_id = t.user_id)
                then 'on' else 'off' end,
           true)
    into in_any_block
    from refresh_tokens t
    where t.family_id = session and t.user_id = app.user_id()
      and t.used_at is null and t.revoked_at is null and t.expires_at > now();
  if not found then
    raise exception 'the session has ended' using errcode = 'CH002';
  end if;
  return case in_any_block when 'off' then 'chirp_user_outside_blocks' else 'chirp_user' end;
end
$$;
revoke execute on function app.require_session(uuid) from public;
grant execute on function app.require_session(uuid) to chirp_user;
