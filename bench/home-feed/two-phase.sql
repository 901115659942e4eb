-- The same merge over index-only (created_at, id) pairs; only the page's 21 posts are joined.
select p.id, p.body, p.created_at, p.like_count, p.comment_count, a.id, a.username, a.display_name,
  coalesce((select true from likes l where l.user_id = (select app.user_id()) and l.post_id = p.id), false)
from (
  select x.created_at, x.id
  from (select f.followee_id as author_id from follows f where f.follower_id = (select app.user_id())
        union all select (select app.user_id())) as followed
  cross join lateral (
    select q.created_at, q.id from posts q
    where q.author_id = followed.author_id
      and (q.created_at, q.id) < ('9999-12-31'::timestamptz, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)
    order by q.created_at desc, q.id desc
    limit 21
  ) as x
  order by x.created_at desc, x.id desc
  limit 21
) as top
join posts p on p.id = top.id
join users a on a.id = p.author_id
order by top.created_at desc, top.id desc
limit 21;
