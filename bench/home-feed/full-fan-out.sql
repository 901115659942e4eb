-- A timeline holding every followed author's posts: one range scan, then the page's posts.
select p.id, p.body, p.created_at, p.like_count, p.comment_count, a.id, a.username, a.display_name,
  coalesce((select true from likes l where l.user_id = (select app.user_id()) and l.post_id = p.id), false)
from (select h.created_at, h.post_id from home_feed_alternatives.full_timeline h
      where h.user_id = (select app.user_id())
        and (h.created_at, h.post_id) < ('9999-12-31'::timestamptz, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)
      order by h.created_at desc, h.post_id desc limit 21) as t
join posts p on p.id = t.post_id
join users a on a.id = p.author_id
order by t.created_at desc, t.post_id desc
limit 21;
