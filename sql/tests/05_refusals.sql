-- What a request role may never do, tried command by command on every table it
-- concerns: anonymous callers write nothing, and only the auth service reads
-- or writes secrets.
begin;
\ir support/helpers.sql
select plan(4);

select pg_temp.act_as('chirp_anon');
select is_empty($$
  select pg_temp.allowed('{insert, update, delete, truncate}',
                         array(select oid::regclass from pg_class
                               where relnamespace = 'public'::regnamespace and relkind = 'r'))
$$, 'anonymous callers can write to no table');
select is_empty($$
  select pg_temp.allowed('{select, insert, update, delete, truncate}',
                         '{credentials, refresh_tokens, rate_limit_hits, idempotency_keys}')
$$, 'anonymous callers can neither read nor write credentials, refresh tokens, attempt counters or idempotency keys');

select pg_temp.act_as('chirp_user', '00000000-0000-4000-a000-00000000000a');
select is_empty($$
  select pg_temp.allowed('{select, insert, update, delete, truncate}',
                         '{credentials, refresh_tokens, rate_limit_hits}')
$$, 'users can neither read nor write credentials, refresh tokens or attempt counters');

-- The check finds what a role may do: the auth service reads, inserts and
-- updates secrets, and deletes none.
select pg_temp.act_as('chirp_signin');
select set_eq($$
  select pg_temp.allowed('{select, insert, update, delete, truncate}', '{credentials, refresh_tokens}')
$$, array['select credentials', 'insert credentials', 'update credentials',
          'select refresh_tokens', 'insert refresh_tokens', 'update refresh_tokens'],
  'the auth service gets as far as it may, and no further');

select * from finish();
rollback;
