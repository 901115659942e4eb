-- What every schema test shares. A test includes it right after BEGIN with
-- \ir support/helpers.sql: the functions live in pg_temp, so they are private
-- to the test's session, any role the test switches to can call them, and the
-- schema under test never sees them.

-- Switches to an app role the way a request does: through its login,
-- chirp_auth_service for chirp_signin (0021) and chirp_service for the others.
create function pg_temp.act_as(who text, uid uuid default null) returns void
  language plpgsql as $$
begin
  perform set_config('role', case who when 'chirp_signin' then 'chirp_auth_service' else 'chirp_service' end, true);
  perform set_config('role', who, true);
  perform set_config('app.user_id', coalesce(uid::text, ''), true);
end
$$;

-- The plan of one statement, one line per row.
create function pg_temp.plan_of(sql text, options text default 'costs off') returns setof text
  language plpgsql as $$
begin
  return query execute 'explain (' || options || ') ' || sql;
end
$$;

-- Rows changed by one statement.
create function pg_temp.affected(sql text) returns integer
  language plpgsql as $$
declare n integer;
begin
  execute sql;
  get diagnostics n = row_count;
  return n;
end
$$;

-- Rows a statement changes on each of two runs: {1,0} for a write that is
-- idempotent, as the service's likes and follows are.
create function pg_temp.affected_twice(sql text) returns integer[]
  language sql as $$
  select array[pg_temp.affected(sql), pg_temp.affected(sql)]
$$;

-- The people of the tests, created as the superuser: each one's id ends in
-- their initial (alice ...0a, bob ...0b, carol ...0c) and their display name
-- is their username capitalised.
create function pg_temp.add_people(variadic usernames text[]) returns void
  language sql as $$
  insert into users (id, username, display_name)
  select ('00000000-0000-4000-a000-00000000000' || left(u, 1))::uuid, u, initcap(u)
  from unnest(usernames) u
$$;

-- Which of the commands (select, insert, update, delete, truncate) the current
-- role holds the privilege for on each of the tables, as 'command table',
-- found by trying them: select and update each column in turn (one will do),
-- insert default values. Every statement is undone; only "permission denied"
-- counts as refused, and a statement that gets further, even to another
-- error (a policy's, a constraint's), is allowed.
create function pg_temp.allowed(commands text[], tables regclass[]) returns setof text
  language plpgsql as $$
declare
  target regclass;
  command text;
  statement text;
begin
  foreach target in array tables loop
    foreach command in array commands loop
      for statement in
        select format(case command
                        when 'select' then 'select %2$I from %1$s'
                        when 'insert' then 'insert into %1$s default values'
                        when 'update' then 'update %1$s set %2$I = default'
                        when 'delete' then 'delete from %1$s'
                        when 'truncate' then 'truncate %1$s'
                      end, target, a.attname)
        from pg_attribute a
        where a.attrelid = target and a.attnum > 0 and not a.attisdropped
          and (command in ('select', 'update') or a.attnum = 1)
      loop
        begin
          execute statement;
          raise exception 'undo';
        exception
          when others then
            if sqlerrm not like 'permission denied%' then
              return next command || ' ' || target;
              exit;
            end if;
        end;
      end loop;
    end loop;
  end loop;
end
$$;
