-- The home feed before home timelines: limit + 1 rows of every followed author, merged.
select p.id, p.body, p.created_at, p.like_count, p.comment_count, a.id, a.username, a.display_name,
  coalesce((select true from likes l where l.user_id = (select app.user_id()) and l.post_id = p.id), false)
from (select f.followee_id as author_id from follows f where f.follower_id = (select app.user_id())
      union all select (select app.user_id())) as followed
cross join lateral (
  select * from posts p
  where p.author_id = followed.author_id
    and (p.created_at, p.id) < ('9999-12-31'::timestamptz, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)
  order by p.created_at desc, p.id desc
  limit 21
) as p
join users a on a.id = p.author_id
order by p.created_at desc, p.id desc
limit 21;
